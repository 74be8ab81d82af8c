"""Counting partners by walking lists, for :mod:`app.core.kapr.pair._search` and
:mod:`app.core.kapr.pair.count`: how many partner records (:class:`Partners`) agree with each
record ``r`` on some attributes and differ on others, where the count tables do not reach.

- :func:`walk`: through the posting list of ``r``'s value of the attribute with the fewest
  records (short when an attribute is light: an id, a date);
- :func:`walk_partners`: through the partner records themselves, grouped by their values
  (short when the partner discloses something); the groups are kept per partner state.
"""

from __future__ import annotations

from functools import partial
from math import prod

import numpy as np

from app.core.kapr._pair_tables import SHARED
from app.core.kapr.pair._partners import Partners
from app.core.kapr.pair.reference import _KEY_LIMIT, _keys

__all__ = ["walk", "walk_partners"]

# Keys of both sides span at most this many values for a table of runs per key (else sorted).
_DENSE_KEYS = 1 << 22
# Walk at most this many posting entries at once (bounds the temporary arrays).
_WALK_CHUNK = 1 << 16


def walk(
    partners: Partners, rows: np.ndarray, agree: frozenset[str], differ, exclude_self: bool
) -> np.ndarray:
    """For each record at ``rows``, the partners agreeing on ``agree`` (non-empty) and
    differing on every attribute of ``differ`` (``r`` itself excluded if asked).

    Walks the posting list of each record's value of the lightest attribute of ``agree``
    (without one, the shortest of its heavy ones but a category's) and compares the rest:
    the heavy attributes by one table code.
    """
    share, heavy = partners.tables.agreement, partners.tables.heavy
    light = sorted(agree - heavy)  # a light attribute's lists are short: take the lightest
    pivots = [min(light, key=share.get)] if light else sorted(a for a in agree if share[a] < SHARED)
    pivots = pivots or [min(sorted(agree), key=share.get)]
    columns = partners.index.columns
    # Partners agreeing or differing (present) on every marked attribute meet the
    # presence pattern: a masked partner's need no other check.
    known = sum(partners.tables.bit[a] for a in agree | set(differ))
    verify = bool(partners.constraints or partners.want or partners.care & ~known)
    out = np.zeros(len(rows), dtype=np.int64)
    if len(pivots) == 1:
        choice, sizes = None, [columns[pivots[0]].counts[columns[pivots[0]].slots[rows]]]
    else:
        sizes = np.stack([columns[a].counts[columns[a].slots[rows]] for a in pivots])
        choice = sizes.argmin(axis=0)
    for i, pivot in enumerate(pivots):
        picked = np.arange(len(rows)) if choice is None else np.flatnonzero(choice == i)
        if not len(picked):
            continue
        checks = _checks(partners, agree - {pivot}, differ)
        column = columns[pivot]
        for lo, hi in _chunks(sizes[i][picked]):
            part = picked[lo:hi]
            mine = column.slots[rows[part]]
            lists = (column.offsets[mine], column.counts[mine], column.order)
            out[part] = _walk(partners, rows[part], lists, checks, exclude_self, verify)
    return out


def walk_partners(
    partners: Partners, rows: np.ndarray, agree: frozenset[str], differ
) -> np.ndarray | None:
    """Like :func:`walk` with ``r`` excluded, through the partner records themselves
    grouped by their values of ``agree`` (non-empty): for a partner that discloses
    something, whose records are few. ``None`` when the rows would walk too many."""
    # Many rows: one pass over keys of both sides beats a search per row.
    grouped = _grouped(partners, agree) if len(rows) <= len(partners.records()) else None
    if grouped is None:
        return _walk_partners_once(partners, rows, agree, differ)
    parts, keys, firsts, runs, ordered = grouped
    if not len(keys):
        return np.zeros(len(rows), dtype=np.int64)
    mine = _key(parts, rows)
    at = np.minimum(np.searchsorted(keys, mine), len(keys) - 1)
    lengths = np.where(keys[at] == mine, runs[at], 0)
    return _walk_lists(partners, rows, (firsts[at], lengths, ordered), differ)


def _grouped(partners: Partners, agree: frozenset[str]) -> tuple | None:
    """The partner records sorted by their key over ``agree``, each key with its first
    position and run length (once per partner state and ``agree``); ``None`` when the
    key would not fit 62 bits."""
    if agree in partners.groups:
        return partners.groups[agree]
    tables, columns = partners.tables, partners.index.columns
    heavy = frozenset(agree & tables.heavy)
    parts = [(partial(tables.code, heavy), len(tables.counts[heavy]))] if heavy else []
    parts += [
        (columns[a].slots.__getitem__, len(columns[a].uniques)) for a in sorted(agree - heavy)
    ]
    found = None
    if prod(size for _, size in parts) < _KEY_LIMIT:
        records = partners.records()
        key = _key(parts, records)
        order = np.argsort(key, kind="stable")
        key = key[order]
        firsts = np.flatnonzero(np.r_[True, key[1:] != key[:-1]]) if len(key) else key
        runs = np.diff(np.r_[firsts, len(key)])
        found = (parts, key[firsts], firsts, runs, records[order])
    partners.groups[agree] = found
    return found


def _walk_partners_once(
    partners: Partners, rows, agree: frozenset[str], differ
) -> np.ndarray | None:
    """:func:`walk_partners` with keys made for these rows (both sides ranked together)."""
    records, tables = partners.records(), partners.tables
    heavy = frozenset(agree & tables.heavy)
    pairs = [(tables.code(heavy, rows), tables.code(heavy, records))] if heavy else []
    slots = [partners.index.columns[a].slots for a in sorted(agree - heavy)]
    key_r, key_b, span = _keys(pairs + [(s[rows], s[records]) for s in slots])
    order = np.argsort(key_b, kind="stable")
    if span <= _DENSE_KEYS:  # where each key's run starts and how long it is: gathers
        per_key = np.bincount(key_b, minlength=span)
        lengths = per_key[key_r]
        starts = (np.cumsum(per_key) - per_key)[key_r]
    else:
        keys = key_b[order]
        starts = np.searchsorted(keys, key_r)
        lengths = np.searchsorted(keys, key_r, "right") - starts
    return _walk_lists(partners, rows, (starts, lengths, records[order]), differ)


def _walk_lists(partners: Partners, rows, lists, differ) -> np.ndarray | None:
    """Walk each row's run of partner records (``lists``: starts, lengths, records)."""
    starts, lengths, ordered = lists
    if int(lengths.sum()) > _WALK_CHUNK + 4 * len(rows):
        return None  # many partners per row: the tables count faster
    checks = _checks(partners, frozenset(), differ)
    out = np.zeros(len(rows), dtype=np.int64)
    for lo, hi in _chunks(lengths):
        part = (starts[lo:hi], lengths[lo:hi], ordered)
        out[lo:hi] = _walk(partners, rows[lo:hi], part, checks, True, verify=False)
    return out


def _checks(partners: Partners, agree: frozenset[str], differ) -> list[tuple]:
    """Per-record values to compare, and whether they must differ (else be equal)."""
    heavy, tables = partners.tables.heavy, partners.tables
    together = frozenset(agree & heavy)
    checks = [(lambda at: tables.code(together, at), False)] if together else []
    checks += [(partners.index.columns[a].slots.__getitem__, False) for a in sorted(agree - heavy)]
    return checks + [(partners.index.columns[a].slots.__getitem__, True) for a in sorted(differ)]


def _walk(partners: Partners, rows, lists, checks, exclude_self: bool, verify: bool) -> np.ndarray:
    """Count, per row, the entries of its list (start, length in ``order``) that pass
    the checks (and are partner records, if ``verify``)."""
    starts, lengths, order = lists
    owner = np.repeat(np.arange(len(rows)), lengths)
    shift = np.repeat(starts - np.cumsum(lengths) + lengths, lengths)
    found = order[shift + np.arange(len(owner))]
    ok = partners.contains(found) if verify else None
    for values, differ in checks:
        theirs, own = values(found), values(rows)[owner]
        passed = (theirs != own) & (theirs != 0) if differ else theirs == own
        ok = passed if ok is None else ok & passed
    if ok is None:
        ok = np.ones(len(found), dtype=bool)
    if exclude_self:
        ok &= found != rows[owner]
    return np.bincount(owner[ok], minlength=len(rows))


def _key(parts: list[tuple], positions: np.ndarray) -> np.ndarray:
    """The mixed-radix key of the records at ``positions`` over ``parts`` (values, radix)."""
    key = np.zeros(len(positions), dtype=np.int64)
    for values, radix in parts:
        key *= radix
        key += values(positions)
    return key


def _chunks(lengths: np.ndarray) -> list[tuple[int, int]]:
    """Split rows into runs walking about :data:`_WALK_CHUNK` entries each (rows walking
    nothing at the start are skipped: their count is zero)."""
    ends = np.cumsum(lengths)
    total = int(ends[-1]) if len(ends) else 0
    bounds = np.searchsorted(ends, np.arange(0, max(total, 1), _WALK_CHUNK), "right").tolist()
    return list(zip(bounds, [*bounds[1:], len(lengths)], strict=True))
