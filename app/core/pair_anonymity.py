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
  row of its pattern with one gather.
- When ``I`` holds the *pivot* (the light attribute records share least: an id), the mask is
  one pass over the pivot's list of pairs of records sharing a value (:class:`PairTables`).
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from app.core.anonymity import AnonymityIndex, Constraint
from app.core.attributes import AttributeType, Level
from app.core.evidence import Markers, Relation, Row
from app.core.pair_partners import Partners
from app.core.pair_reference import count_pair_reference
from app.core.pair_search import has_partner, pivot_mask
from app.core.pair_walk import walk_partners

__all__ = ["count_pair"]

# How many pair-model counts an index remembers before it starts afresh.
_REMEMBERED = 4096
# Rows with at least 1/_WHOLE of the source's records (and _WHOLE_MIN records) are answered
# from a whole-source mask; an index keeps _MASKS of them and _PARTNERS partner states.
_WHOLE = 8
_WHOLE_MIN = 4096
_MASKS = 32  # a page of 10 pairs needs at most 20 (one per side)
# A mask lists the records on its smaller side (for counts per value) when they are at most
# 1/_MINORITY of the source (int32: ≤ 1 MB at 1M records, as the mask itself); 0: never.
_MINORITY = 4
# A partner state with at most this many records is walked through directly.
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
    whole = _whole_count(index, key, partners, row, mine)
    if whole is not None:
        return whole
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
        rows = _near(rows, identical, partners)
        if partners.size() <= _FEW and len(rows):  # walk the few partners themselves
            walked = walk_partners(partners, rows, identical, different)
            if walked is not None:
                return int(np.count_nonzero(walked))
    if not explicit and len(rows) >= _WHOLE_MIN and len(rows) * _WHOLE >= index.n:
        return int(np.count_nonzero(_whole(index, key, partners).mask[rows]))
    if not len(rows):
        return 0
    return int(np.count_nonzero(has_partner(rows, identical, different, partners)))


def _near(rows: np.ndarray, identical: frozenset[str], partners: Partners) -> np.ndarray:
    """Keep the ``rows`` sharing their identical values with some partner (one lookup)."""
    records = partners.records()
    if len(records) >= len(rows):
        return rows
    tables = partners.tables
    heavy = identical & tables.heavy
    if heavy:
        size, values = len(tables.counts[heavy]), lambda at: tables.code(heavy, at)
    else:
        column = partners.index.columns[min(sorted(identical), key=tables.agreement.get)]
        size, values = len(column.uniques), column.slots.__getitem__
    allowed = np.zeros(size, dtype=bool)
    allowed[values(records)] = True
    return rows[allowed[values(rows)]]


def _combined(index: AnonymityIndex, mine: dict, moved: dict) -> dict[str, Constraint]:
    """The row's constraints with the partner's ``moved`` ones (intersected per attribute)."""
    if not moved:
        return mine
    mine = dict(mine)
    for a, c in moved.items():
        own = mine.get(a)
        if own is None or own is c:
            mine[a] = c
        else:
            slots = np.intersect1d(own.slots, c.slots)
            mine[a] = Constraint(a, slots, int(index.columns[a].counts[slots].sum()))
    return mine


def _whole_count(
    index: AnonymityIndex, key: tuple, partners: Partners, row: Row, mine: dict
) -> int | None:
    """``k_i`` of a row constrained (``mine``) on at most one attribute against a masked
    partner, from the pattern's whole-source mask; ``None`` to count the row's records
    instead.

    A large row is counted from the mask's records per value of its attribute, so its
    records are never listed. A small one makes the mask first when the page will need it
    anyway: its previews reveal each masked category, whose values are shared by a large
    share of the source (the first page of a pair shows one such row per cell).
    """
    if len(mine) > 1 or partners.constraints:
        return None
    (attr, c), *_ = [*mine.items(), (None, None)]
    size = index.n if c is None else c.size
    large = size >= _WHOLE_MIN and size * _WHOLE >= index.n
    if not large:
        if key not in index.pair_masks and _soon(index, row):
            _whole(index, key, partners)
        return None  # counted through the mask, if made, from the row's records
    if c is not None and len(index.columns[attr].uniques) * _WHOLE > index.n:
        return None  # a per-value count as large as the source: list the rows instead
    whole = _whole(index, key, partners)
    if c is None:
        return whole.total
    return int(whole.per_value(attr, index.columns[attr])[c.slots].sum())


def _soon(index: AnonymityIndex, row: Row) -> bool:
    """Whether revealing a masked category of ``row`` would make a large row (expected)."""
    if index.n < _WHOLE_MIN:
        return False
    shared = index.pair_tables.agreement
    return any(
        ev.level is Level.MASKED and ev.total and shared[a] * _WHOLE >= 1
        for a, ev in row.items()
        if index.columns[a].kind is AttributeType.CATEGORY
    )


class _Mask:
    """The records with a partner (a whole-source mask) and their number per value."""

    def __init__(self, mask: np.ndarray) -> None:
        self.mask, self.total = mask, int(np.count_nonzero(mask))
        self._per_value: dict[str, np.ndarray] = {}
        self._few: tuple[bool, np.ndarray | None] | None = None

    def per_value(self, attr: str, column) -> np.ndarray:
        """How many of the records have each slot of ``attr`` (computed once per mask)."""
        found = self._per_value.get(attr)
        if found is None:
            inside, few = self._minority()
            if few is not None:  # count the few records on the mask's smaller side
                found = np.bincount(column.slots[few], minlength=len(column.uniques))
                found = found if inside else column.counts - found
            else:
                # Records outside the mask fall on slot 0 (one pass, no selection), whose
                # count of records with a partner and no value is then the rest of the total.
                found = np.bincount(column.slots * self.mask, minlength=len(column.uniques))
                found[0] = self.total - found[1:].sum()
            self._per_value[attr] = found
        return found

    def _minority(self) -> tuple[bool, np.ndarray | None]:
        """The positions on the mask's smaller side (whether inside it), listed once per mask
        when they are at most 1/_MINORITY of the source (else ``None``)."""
        if self._few is None:
            inside = 2 * self.total <= len(self.mask)
            few = min(self.total, len(self.mask) - self.total)
            listed = None
            if _MINORITY and few * _MINORITY <= len(self.mask):
                listed = np.flatnonzero(self.mask if inside else ~self.mask).astype(np.int32)
            self._few = (inside, listed)
        return self._few


def _whole(index: AnonymityIndex, key: tuple, partners: Partners) -> _Mask:
    """Return the mask of the source's records (meeting the row's presence) with a partner."""
    found = index.pair_masks.get(key)
    if found is None:
        care, want, identical, different, _ = key
        mask = pivot_mask(identical, different, partners)
        if mask is not None:  # every record at once: keep those meeting the presence
            mask &= index.pair_tables.matches(slice(None), care, want)
        else:
            everyone = index.pair_tables.pattern(care, want)
            if identical and not partners.complete_ok:
                everyone = _near(everyone, identical, partners)
            known = partners.within(care, want)  # the rows share one presence pattern
            mine = None if known is None else np.full(len(everyone), known)
            mask = np.zeros(index.n, dtype=bool)
            mask[everyone] = has_partner(everyone, identical, different, partners, mine)
        found = _Mask(mask)
        if len(index.pair_masks) >= _MASKS:
            index.pair_masks.clear()
        index.pair_masks[key] = found
    return found
