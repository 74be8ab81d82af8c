"""Whole-source masks of the ``pair`` model: for one markers pattern and partner state, which
of the source's records have a partner (:mod:`app.core.kapr.pair.count` gives the definition).

A row matching a large share of the source is answered from such a mask instead of from its
own records: one gather, or, for a row constrained on one attribute, the mask's records
counted per value of it (:class:`Mask`). Masks are kept on the index per pattern
(``index.pair_masks``), so every row and pair with the same markers beside a masked partner
shares one; a small row makes its pattern's mask early when its previews will need it.
"""

from __future__ import annotations

import numpy as np

from app.core.disclosure import AttributeType, Level
from app.core.kapr.anonymity import AnonymityIndex
from app.core.kapr.evidence import Row
from app.core.kapr.pair._partners import Partners
from app.core.kapr.pair._search import has_partner, pivot_mask

__all__ = ["Mask", "large", "whole", "whole_count"]

# Rows with at least 1/_WHOLE of the source's records (and _WHOLE_MIN records) are answered
# from a whole-source mask; an index keeps _MASKS of them.
_WHOLE = 8
_WHOLE_MIN = 4096
_MASKS = 32  # a page of 10 pairs needs at most 20 (one per side)
# A mask lists the records on its smaller side (for counts per value) when they are at most
# 1/_MINORITY of the source (int32: ≤ 1 MB at 1M records, as the mask itself); 0: never.
_MINORITY = 4


def large(index: AnonymityIndex, size: int) -> bool:
    """Whether ``size`` records are enough of the source to be answered from a mask."""
    return size >= _WHOLE_MIN and size * _WHOLE >= index.n


def whole_count(
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
    if not large(index, size):
        if key not in index.pair_masks and _soon(index, row):
            whole(index, key, partners)
        return None  # counted through the mask, if made, from the row's records
    if c is not None and len(index.columns[attr].uniques) * _WHOLE > index.n:
        return None  # a per-value count as large as the source: list the rows instead
    made = whole(index, key, partners)
    if c is None:
        return made.total
    return int(made.per_value(attr, index.columns[attr])[c.slots].sum())


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


class Mask:
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


def whole(index: AnonymityIndex, key: tuple, partners: Partners) -> Mask:
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
                everyone = partners.near(everyone, identical)
            known = partners.within(care, want)  # the rows share one presence pattern
            mine = None if known is None else np.full(len(everyone), known)
            mask = np.zeros(index.n, dtype=bool)
            mask[everyone] = has_partner(everyone, identical, different, partners, mine)
        found = Mask(mask)
        if len(index.pair_masks) >= _MASKS:
            index.pair_masks.clear()
        index.pair_masks[key] = found
    return found
