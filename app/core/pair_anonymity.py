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

Computation, for two rows of one source (two sources: :mod:`app.core.pair_reference`).
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
  cell of the row and every pair with the same markers); a partner matching few records first
  narrows the row to records sharing an identical value with one of them.
"""

from __future__ import annotations

from collections.abc import Callable
from itertools import combinations

import numpy as np

from app.core.anonymity import AnonymityIndex
from app.core.attributes import Level
from app.core.evidence import Markers, Relation, Row
from app.core.pair_partners import Partners
from app.core.pair_reference import count_pair_reference
from app.core.pair_tables import SHARED

__all__ = ["count_pair"]

# How many pair-model counts an index remembers before it starts afresh.
_REMEMBERED = 4096
# Rows with at least 1/_WHOLE of the source's records (and _WHOLE_MIN records) are answered
# from a whole-source mask; an index keeps _MASKS of them and _PARTNERS partner states.
_WHOLE = 8
_WHOLE_MIN = 4096
_MASKS = 16
_PARTNERS = 64
# A partner state with at most 1/_NEAR of the row's records narrows the row first.
_NEAR = 8

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
    shown = frozenset((a, ev) for a, ev in partner.items() if ev.level is not Level.MASKED)
    state = (care[other], want[other], shown)
    partners = index.pair_partners.get(state)
    if partners is None:
        partners = Partners(index, constraints, care[other], want[other])
        if len(index.pair_partners) >= _PARTNERS:
            index.pair_partners.clear()
        index.pair_partners[state] = partners
    if not partners.size():
        return 0
    rows = _get(candidates)
    rows = index.candidates(row) if rows is None else rows
    rows = rows[tables.matches(rows, care[side], want[side])]
    identical, different = frozenset(same), frozenset(unlike)
    if identical and len(rows) and (partners.constraints or not partners.complete_ok):
        rows = _near(rows, identical, partners)
    if len(rows) >= _WHOLE_MIN and len(rows) * _WHOLE >= index.n:
        key = (care[side], want[side], identical, different, state)
        return int(np.count_nonzero(_whole(index, key, partners)[rows]))
    if not len(rows):
        return 0
    return int(np.count_nonzero(_has_partner(rows, identical, different, partners)))


def _near(rows: np.ndarray, identical: frozenset[str], partners: Partners) -> np.ndarray:
    """Keep the ``rows`` sharing the value of one identical attribute with some partner."""
    if partners.size() * _NEAR > len(rows):
        return rows
    records, best = partners.records(), None
    for a in sorted(identical):
        column = partners.index.columns[a]
        values = np.unique(column.slots[records])
        total = int(column.counts[values].sum())
        if best is None or total < best[0]:
            best = (total, column, values)
    total, column, values = best
    if total >= len(rows):
        return rows
    near = column.records(values)
    at = np.minimum(np.searchsorted(rows, near), len(rows) - 1)
    return np.sort(near[rows[at] == near])


def _whole(index: AnonymityIndex, key: tuple, partners: Partners) -> np.ndarray:
    """Return the mask of the source's records (meeting the row's presence) with a partner."""
    found = index.pair_masks.get(key)
    if found is None:
        care, want, identical, different, _ = key
        everyone = index.pair_tables.pattern(care, want)
        found = np.zeros(index.n, dtype=bool)
        found[everyone[_has_partner(everyone, identical, different, partners)]] = True
        if len(index.pair_masks) >= _MASKS:
            index.pair_masks.clear()
        index.pair_masks[key] = found
    return found


def _has_partner(rows, identical: frozenset[str], different: frozenset[str], partners: Partners):
    """Return a mask of the ``rows`` with ``N(r) > 0`` (see the module docstring)."""
    heavy = partners.tables.heavy
    if identical - heavy:
        columns = partners.index.columns
        # r itself is among the records sharing its value, and a partner if it is in B.
        bound = np.min([columns[a].counts[columns[a].slots[rows]] for a in identical - heavy], 0)
        bound -= 1
        if identical & heavy:
            agreeing = partners.count(identical & heavy, rows) - partners.contains(rows)
            bound = np.minimum(bound, agreeing)
        found = np.zeros(len(rows), dtype=bool)
        keep = np.flatnonzero(bound > 0)
        found[keep] = partners.walk(rows[keep], identical, different, exclude_self=True) > 0
        return found
    shared = frozenset(f for f in different if f in heavy and _shared(partners, f))
    others = sorted(different - shared)
    first = _bracket(rows, identical, frozenset(), shared, partners)
    if not different:
        return first - partners.contains(rows) > 0
    if not others:
        return first > 0
    found = np.zeros(len(rows), dtype=bool)
    live = np.flatnonzero(first > 0)  # order zero is an upper bound
    lower = first[live].copy()
    for f in others:  # order one, with an upper bound of each term: a lower bound
        lower -= np.minimum(_bound(rows[live], identical, f, shared, partners), first[live])
    found[live[lower > 0]] = True
    live = live[lower <= 0]
    partial = first[live]
    # The rest exactly, order by order: odd orders bound from below, even from above.
    for size in range(1, len(others) + 1):
        if not len(live):
            break
        for subset in combinations(others, size):
            hits = _bracket(rows[live], identical, frozenset(subset), shared, partners)
            partial = partial - hits if size % 2 else partial + hits
        if size == len(others):  # the sum is exact
            found[live[partial > 0]] = True
            break
        settled = partial > 0 if size % 2 else partial <= 0
        if size % 2:
            found[live[settled]] = True
        live, partial = live[~settled], partial[~settled]
    return found


def _shared(partners: Partners, attr: str) -> bool:
    return partners.tables.agreement[attr] >= SHARED


def _bound(rows, identical, f: str, shared: frozenset[str], partners: Partners) -> np.ndarray:
    """An upper bound of ``b({f})`` at ``rows``: one lookup."""
    if f in partners.tables.heavy:
        agreeing = partners.count(identical | {f}, rows)
        return agreeing - partners.contains(rows) if shared else agreeing
    column = partners.index.columns[f]
    return column.counts[column.slots[rows]] - (1 if shared else 0)


def _bracket(rows, identical, subset, shared: frozenset[str], partners: Partners) -> np.ndarray:
    """``b(S)``: the partners agreeing on ``identical ∪ subset`` and differing on ``shared``."""
    agree = identical | subset
    if agree | shared <= partners.tables.heavy:
        total = np.zeros(len(rows), dtype=np.int64)
        for size in range(len(shared) + 1):
            for extra in combinations(sorted(shared), size):
                hits = partners.count(agree | frozenset(extra), rows)
                total = total - hits if size % 2 else total + hits
        return total
    return partners.walk(rows, agree, shared, exclude_self=False)
