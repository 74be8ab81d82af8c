"""Anonymity-set size under the ``pair`` evidence model (spec/README.md §2).

Definition (the ``pair`` model). A displayed pair shows row *i* (source ``X``) beside its
partner row *i'* (source ``Y``) and, for each attribute *a* with a marker, the relation of the
two values, visible at every display level:

- ``identical``: both values present and equal;
- ``different``: both values present and unequal;
- ``missing``: the flagged side(s) have no value, an unflagged side has one.

Then ``k_i`` is the number of records ``r`` of ``X`` such that

1. ``r`` is consistent with row *i*'s own evidence (the ``row`` model), and
2. some record ``r'`` of ``Y`` is consistent with the partner's evidence, ``(r, r')`` satisfy
   every marker, and ``r' != r`` when ``X`` and ``Y`` are the same source (a pair shows two
   different records; two different sources never share a record).

Markers are per attribute: the character-level alignment markers of a partial display are not
used beyond the characters each row discloses. An attribute without a marker relates nothing.

Computation, for two rows of one source (two sources: :mod:`app.core.kapr.pair.reference`).
A partner's constraint on an identical attribute moves to the row: a partner agreeing with
``r`` there has ``r``'s value, so it meets the constraint iff ``r`` does (``k_i`` counts the
rows meeting it beside the partner without it; a partner disclosing only identical
attributes is then counted as a masked one, whose terms are lookups and whose masks are shared).
Presence is one bit-mask test per side (:class:`PairTables`); the partner side ``B`` stays
implicit (:class:`Partners`). With ``I`` the identical and ``F`` the different attributes,
``N(r)`` = the partners of ``r`` and ``k_i = #{r : N(r) > 0}``:

- ``I`` holds a *light* attribute (an id, a date): ``N(r)`` is counted exactly by walking the
  short posting list of ``r``'s value, after cheap upper bounds rule out most records.
- Otherwise, with ``H`` the attributes of ``F`` that records often share (categories) and
  ``L`` the rest, ``N(r) = Σ_{S ⊆ L} (-1)^|S| b(S)`` where ``b(S)`` counts the partners that
  agree on ``I ∪ S`` and differ on all of ``H``: ``b(S)`` is an exact inclusion-exclusion of
  table lookups when ``I ∪ S ∪ H`` are heavy, else a walk. The partial sums over ``|S|`` are
  alternately upper and lower bounds (Bonferroni), and order one is first bounded by one lookup
  per attribute, so almost every record is settled by ``2^|H| + |L|`` lookups.
- A row matching a large share of the source is answered from a mask of the records with a
  partner, computed once per markers and partner state (a masked partner's is shared by every
  cell of the row and every pair with the same markers); a partner that discloses something
  first narrows the row to the records sharing their identical values with one of its records.
  Beside a masked partner, a row disclosing one attribute is counted from the mask's records
  per value of that attribute (its records are never listed), and a small such row makes the
  mask first when its category previews will need it anyway; once made, a mask answers any
  row of its pattern with one gather (:mod:`app.core.kapr.pair._masks`).
- When ``I`` holds the *pivot* (the light attribute records share least: an id), the mask is
  one pass over the pivot's list of pairs of records sharing a value (:class:`PairTables`).
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from app.core.disclosure import Level
from app.core.kapr.anonymity import AnonymityIndex, Constraint
from app.core.kapr.evidence import Markers, Relation, Row
from app.core.kapr.pair._masks import large, whole, whole_count
from app.core.kapr.pair._partners import Partners
from app.core.kapr.pair._search import has_partner
from app.core.kapr.pair._walk import walk_partners
from app.core.kapr.pair.reference import count_pair_reference

__all__ = ["count_pair"]

# How many pair-model counts an index remembers before it starts afresh.
_REMEMBERED = 4096
# A partner state with at most this many records is walked through directly; an index keeps
# _PARTNERS partner states.
_FEW = 1 << 16
_PARTNERS = 32

Candidates = np.ndarray | Callable[[], np.ndarray] | None


def count_pair(
    row: Row,
    partner: Row,
    markers: Markers,
    side: str,
    index: AnonymityIndex,
    partner_index: AnonymityIndex,
    *,
    candidates: Candidates = None,
    partner_candidates: Candidates = None,
) -> int:
    """Return ``k_i`` of ``row`` (shown on ``side``) under the ``pair`` model.

    ``index`` and ``partner_index`` are the same object exactly when both rows come from one
    source. Precomputed ``row``-model candidate arrays (or functions returning them, called
    only when needed) may be passed to save work.

    Results are remembered on ``index`` (records never change under an index: a new import
    builds a new one), so a page shown again, or the pairs a reveal left untouched, cost a
    dictionary lookup.
    """
    key = (
        id(partner_index), side,
        frozenset(row.items()), frozenset(partner.items()), frozenset(markers.items()),
    )  # fmt: skip
    known = index.pair_counts.get(key)
    if known is not None and known[0] is partner_index:
        return known[1]
    k = _count_pair(row, partner, markers, side, index, partner_index, candidates,
                    partner_candidates)  # fmt: skip
    if len(index.pair_counts) >= _REMEMBERED:
        index.pair_counts.clear()  # coarse, but atomic under concurrent requests
    index.pair_counts[key] = (partner_index, k)
    return k


def _get(candidates: Candidates) -> np.ndarray | None:
    return candidates() if callable(candidates) else candidates


def _count_pair(
    row: Row,
    partner: Row,
    markers: Markers,
    side: str,
    index: AnonymityIndex,
    partner_index: AnonymityIndex,
    candidates: Candidates,
    partner_candidates: Candidates,
) -> int:
    if index is not partner_index:
        a, b = _get(candidates), _get(partner_candidates)
        return count_pair_reference(row, partner, markers, side, index, partner_index, a, b)
    other = "right" if side == "left" else "left"
    tables = index.pair_tables
    care, want = {side: 0, other: 0}, {side: 0, other: 0}
    same, unlike = set(), set()
    for attr, marker in markers.items():
        for s in (side, other):
            care[s] |= tables.bit[attr]
            want[s] |= tables.bit[attr] if marker.missing(s) else 0
        if marker.relation is Relation.IDENTICAL:
            same.add(attr)
        elif marker.relation is Relation.DIFFERENT:
            unlike.add(attr)
    constraints = index.constraints(partner)
    if any(c.size == 0 for c in constraints.values()):
        return 0
    # A partner agreeing with r on an identical attribute has r's value: it meets the
    # partner's constraint there iff r does. Such constraints filter the rows instead, and
    # the partner state (its tables, masks and walks) is the one without them.
    moved = {a: c for a, c in constraints.items() if a in same}
    constraints = {a: c for a, c in constraints.items() if a not in same}
    shown = frozenset(
        (a, ev) for a, ev in partner.items() if ev.level is not Level.MASKED and a not in same
    )
    state = (care[other], want[other], shown)
    partners = index.pair_partners.get(state)
    if partners is None:
        partners = Partners(index, constraints, care[other], want[other])
        if len(index.pair_partners) >= _PARTNERS:
            index.pair_partners.clear()
        index.pair_partners[state] = partners
    if not partners.size():
        return 0
    key = (care[side], want[side], frozenset(same), frozenset(unlike), state)
    mine = _combined(index, index.constraints(row), moved)
    counted = whole_count(index, key, partners, row, mine)
    if counted is not None:
        return counted
    rows = None if moved else _get(candidates)
    rows = index.select(mine) if rows is None else rows
    rows = rows.astype(np.intp, copy=False)  # gathers by int32 positions would cast each time
    rows = rows[tables.matches(rows, care[side], want[side])]
    made = index.pair_masks.get(key)
    if made is not None:  # this pattern's mask, made for a larger row: one gather
        return int(np.count_nonzero(made.mask[rows]))
    identical, different = frozenset(same), frozenset(unlike)
    explicit = partners.constraints or not partners.complete_ok
    if identical and len(rows) and explicit:
        rows = partners.near(rows, identical)
        if partners.size() <= _FEW and len(rows):  # walk the few partners themselves
            walked = walk_partners(partners, rows, identical, different)
            if walked is not None:
                return int(np.count_nonzero(walked))
    if not explicit and large(index, len(rows)):
        return int(np.count_nonzero(whole(index, key, partners).mask[rows]))
    if not len(rows):
        return 0
    return int(np.count_nonzero(has_partner(rows, identical, different, partners)))


def _combined(index: AnonymityIndex, mine: dict, moved: dict) -> dict[str, Constraint]:
    """The row's constraints with the partner's ``moved`` ones (intersected per attribute)."""
    if not moved:
        return mine
    mine = dict(mine)
    for a, c in moved.items():
        own = mine.get(a)
        mine[a] = c if own is None else index.intersect(own, c)
    return mine
