"""Which records have a partner under the ``pair`` model: ``N(r) > 0`` for many ``r`` at once.

The search behind :mod:`app.core.kapr.pair.count` (whose docstring gives the definition and the
method) for records ``r`` and partner records ``B`` of one source: table lookups for heavy
attributes, Bonferroni bounds order by order, walks of short posting lists for light ones, and
one pass over the pivot's pairs of records when the identical attributes hold it.
"""

from __future__ import annotations

from itertools import combinations

import numpy as np

from app.core.kapr._pair_tables import SHARED
from app.core.kapr.pair._partners import Partners
from app.core.kapr.pair._walk import walk

__all__ = ["has_partner", "pivot_mask"]

# From this many rows on, order zero is summed once per code when codes repeat enough.
_BY_CODE = 4096
# Rows that are at least 1/_KEEP of the source gather order zero's terms from per-record
# counts kept on the tables (shared by a page's masks); 0: never.
_KEEP = 4
# Rows are answered from the pivot's list of pairs when they are at least 1/_BY_PAIRS of it
# (0: never).
_BY_PAIRS = 8
# An order-one term whose bound is at most this for every record is first taken as that.
_LOOSE = 64


def pivot_mask(identical: frozenset[str], different, partners: Partners) -> np.ndarray | None:
    """A mask of every record with a partner, from the pivot's pairs (``None``: not here)."""
    return partners.by_pivot(identical, different) if _BY_PAIRS else None


def has_partner(
    rows, identical: frozenset[str], different: frozenset[str], partners: Partners, mine=None
):
    """Return a mask of the ``rows`` with ``N(r) > 0`` (see the module docstring).

    Every count here leaves ``r`` itself out (it is in ``B`` when it meets the partner's
    evidence, and agrees with itself on everything), so the bounds stay tight. ``mine``:
    whether each row is itself a partner record, when the caller knows.
    """
    # Gathers by int32 positions cast them first: ~3x slower than by intp ones at 1M rows.
    rows, heavy = rows.astype(np.intp, copy=False), partners.tables.heavy
    if len(rows) * _BY_PAIRS >= partners.tables.n_pairs:
        found = pivot_mask(identical, different, partners)
        if found is not None:
            return found[rows]
    if identical - heavy:
        tables, columns = partners.tables, partners.index.columns
        bound = np.min(
            [tables.light_bound(rows, a, identical & heavy, columns) for a in identical - heavy], 0
        )
        if identical & heavy:
            agreeing = partners.count(identical & heavy, rows) - partners.contains(rows)
            bound = np.minimum(bound, agreeing)
        found = np.zeros(len(rows), dtype=bool)
        keep = np.flatnonzero(bound > 0)
        found[keep] = walk(partners, rows[keep], identical, different, exclude_self=True) > 0
        return found
    shared = frozenset(f for f in different if f in heavy and _shared(partners, f))
    others = sorted(different - shared)
    mine = partners.contains(rows) if mine is None else mine
    first = _first(rows, identical, shared, partners, mine)
    if not others:
        return first > 0
    most = {f: _most(identical, f, partners) for f in others}
    found = first > sum(most.values())  # surely a partner
    live = np.flatnonzero((first > 0) & ~found)  # order zero is an upper bound
    # Order one, with an upper bound of each term: a lower bound. Terms whose bound is
    # small everywhere take it first; the records that leaves unsettled then get their
    # own bound of those terms too (one lookup per record and term).
    loose = [f for f in others if most[f] <= _LOOSE]
    lower = first[live]
    for f in (f for f in others if most[f] > _LOOSE):
        bound = _bound(rows[live], identical, f, partners, mine[live])
        lower = lower - np.minimum(bound, first[live])
    if loose:
        settled = lower > sum(most[f] for f in loose)
        found[live[settled]] = True
        live, lower = live[~settled], lower[~settled]
    for f in loose:
        bound = _bound(rows[live], identical, f, partners, mine[live])
        lower = lower - np.minimum(bound, first[live])
    found[live[lower > 0]] = True
    live = live[lower <= 0]
    partial = first[live]
    # The rest exactly, order by order: odd orders bound from below, even from above.
    for size in range(1, len(others) + 1):
        if not len(live):
            break
        for subset in combinations(others, size):
            hits = _bracket(rows[live], identical, frozenset(subset), shared, partners, mine[live])
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


def _first(rows, identical, shared, partners: Partners, mine: np.ndarray) -> np.ndarray:
    """``b(∅)`` at ``rows``. It depends on a record's code over ``identical ∪ shared`` only,
    so with many more rows than codes it is summed once per code."""
    attrs, tables = identical | shared, partners.tables
    if not attrs or len(rows) < _BY_CODE:
        return _bracket(rows, identical, frozenset(), shared, partners, mine)
    if _KEEP and partners.all_complete() and len(rows) * _KEEP >= len(tables.missing):
        total = _sum(rows, identical, shared, partners, keep=True)
        return total if shared else total - mine
    memo: dict = {}
    code = tables.code(attrs, rows, memo)
    needed = np.zeros(len(tables.counts[attrs]), dtype=bool)
    needed[code] = True
    codes = np.flatnonzero(needed)
    if 2 * len(codes) >= len(rows):
        total = _sum(rows, identical, shared, partners, memo)
    else:
        per_code = np.zeros(len(needed), dtype=np.int64)
        per_code[codes] = _sum(tables.representatives(attrs)[codes], identical, shared, partners)
        total = per_code[code]
    return total if shared else total - mine


def _most(identical: frozenset[str], f: str, partners: Partners) -> int:
    """The largest :func:`_bound` of ``f`` over all records."""
    tables = partners.tables
    if f in tables.heavy:
        return partners.most(identical | {f})
    heavy = identical & tables.heavy
    if heavy:
        return tables.most_both(heavy, f) - 1
    return int(partners.index.columns[f].counts[1:].max(initial=1)) - 1


def _bound(rows, identical, f: str, partners: Partners, mine: np.ndarray) -> np.ndarray:
    """An upper bound of ``b({f})`` at ``rows``: one lookup."""
    if f in partners.tables.heavy:
        return partners.count(identical | {f}, rows) - mine
    heavy = identical & partners.tables.heavy
    bound = partners.tables.light_bound(rows, f, heavy, partners.index.columns)
    if partners.constraints or not partners.complete_ok:  # few partners: which values?
        bound *= partners.holds(f, rows)
    return bound


def _bracket(rows, identical, subset, shared, partners: Partners, mine: np.ndarray) -> np.ndarray:
    """``b(S)``: the partners other than ``r`` agreeing on ``identical ∪ subset`` and
    differing on ``shared`` (``mine``: whether each ``r`` is itself a partner record)."""
    agree = identical | subset
    if agree | shared <= partners.tables.heavy:
        total = _sum(rows, agree, shared, partners)
        # r itself agrees with itself on everything: in the sum only without "differ".
        return total if shared else total - mine
    return walk(partners, rows, agree, shared, exclude_self=True)


def _sum(rows, agree, shared: frozenset[str], partners: Partners, memo=None, keep=False):
    """The partners agreeing on heavy ``agree`` and differing on heavy ``shared``, ``r``
    included: inclusion-exclusion over ``shared``, one lookup per term."""
    total = np.zeros(len(rows), dtype=np.int64)
    memo = {} if memo is None else memo
    for size in range(len(shared) + 1):
        for extra in combinations(sorted(shared), size):
            hits = partners.count(agree | frozenset(extra), rows, memo, keep=keep)
            total = total - hits if size % 2 else total + hits
    return total
