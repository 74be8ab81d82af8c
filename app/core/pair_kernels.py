"""Compiled (numba) partner search of the ``pair`` model for many rows at once.

For each row ``r`` (of one source), :func:`has_partner` looks for one partner record ``r' != r``
agreeing with ``r`` on the identical attributes and differing (present) on the different ones,
by walking the shortest of ``r``'s posting lists over the identical attributes and stopping at
the first witness. A walk longer than :data:`CAP` entries is left undecided and answered by the
numpy path of :mod:`app.core.pair_anonymity` (the reference: a witness proves ``N(r) > 0``; a
finished walk without one proves ``N(r) = 0``), so the result is exact whatever ``CAP``.

No temporary array per record: one pass over the rows, reading the per-attribute slot arrays.
"""

from __future__ import annotations

import numpy as np
from numba import njit

__all__ = ["CAP", "has_partner"]

#: Entries walked per row before the row is left to the numpy path.
CAP = 1024
#: From this share of the source on (1 / GROUPED), rows are taken list by list.
GROUPED = 8


@njit(cache=True, nogil=True)
def _scan(rows, values, lists, pivot, same, unlike, check, member, cap, out):
    """``out[i]``: 1 when a witness was found for ``rows[i]``, 0 when none exists, -1 when
    its walk passed ``cap`` entries. ``values``: the slots, one row per record; ``lists``:
    (offsets, counts, order) of attribute ``pivot``, one of ``same``."""
    offsets, counts, order = lists
    for i in range(len(rows)):
        r = rows[i]
        s = values[r, pivot]
        lo, size = offsets[s], counts[s]
        found = 0
        for j in range(min(size, cap)):
            c = order[lo + j]
            if c == r or (check and not member[c]):
                continue
            ok = True
            for a in same:
                if values[c, a] != values[r, a]:
                    ok = False
                    break
            if ok:
                for f in unlike:
                    v = values[c, f]
                    if v == 0 or v == values[r, f]:
                        ok = False
                        break
            if ok:
                found = 1
                break
        out[i] = -1 if found == 0 and size > cap else found


@njit(cache=True, nogil=True)
def _grouped(values, lists, pivot, wanted, same, unlike, check, member, cap, out):
    """:func:`_scan` for the records with ``wanted`` set, taken list by list of ``pivot``
    (the records of one list, walked by each other, stay in cache); ``out`` over the source."""
    offsets, counts, order = lists
    for s in range(len(counts)):
        lo, size = offsets[s], counts[s]
        for k in range(size):
            r = order[lo + k]
            if not wanted[r]:
                continue
            found = 0
            for j in range(min(size, cap)):
                c = order[lo + j]
                if c == r or (check and not member[c]):
                    continue
                ok = True
                for a in same:
                    if values[c, a] != values[r, a]:
                        ok = False
                        break
                if ok:
                    for f in unlike:
                        v = values[c, f]
                        if v == 0 or v == values[r, f]:
                            ok = False
                            break
                if ok:
                    found = 1
                    break
            out[r] = -1 if found == 0 and size > cap else found


def has_partner(rows, values, lists, pivot, member, same, unlike, cap=None):
    """Run :func:`_scan` (-1/0/1 per row): ``values`` the (records × attributes) slots;
    ``lists`` the posting lists of attribute ``pivot``, one of the attributes ``same``;
    ``member``: a mask of the partner records over the source, or ``None`` for all."""
    check = member is not None
    member = member if check else np.zeros(1, dtype=np.bool_)
    cap = CAP if cap is None else cap
    same, unlike = np.asarray(same, dtype=np.int64), np.asarray(unlike, dtype=np.int64)
    if len(rows) * GROUPED >= len(values):  # many rows: list by list
        wanted = np.zeros(len(values), dtype=np.bool_)
        wanted[rows] = True
        out = np.empty(len(values), dtype=np.int8)
        _grouped(values, lists, pivot, wanted, same, unlike, check, member, cap, out)
        return out[rows]
    out = np.empty(len(rows), dtype=np.int8)
    rows = np.ascontiguousarray(rows, dtype=np.int64)
    _scan(rows, values, lists, pivot, same, unlike, check, member, cap, out)
    return out
