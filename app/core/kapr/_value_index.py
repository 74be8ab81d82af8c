"""Per-attribute value index of one source (used by :mod:`app.core.kapr.anonymity`).

Each distinct normalised value gets a *slot*: its rank among the sorted distinct values, slot 0
being "missing". The index keeps every record's slot, a CSR posting list slot -> sorted record
positions, and, for non-categories, posting lists (length, position, character) -> slots and
length -> slots, so that a partial display's consistent values are found without a scan.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from app.core.disclosure import MISSING_TOKENS, AttributeType, Level, normalize
from app.core.kapr.evidence import Evidence

__all__ = ["ValueIndex"]

EMPTY = np.empty(0, dtype=np.int32)
_PLAIN_KINDS = (AttributeType.STRING, AttributeType.ID)


class ValueIndex:
    """The index of one attribute's values over one source (see the module docstring)."""

    def __init__(self, kind: AttributeType, raw: Sequence[str | None]) -> None:
        self.kind = kind
        # Normalise each distinct raw value once, then rank the normalised values.
        lookup = {v: i for i, v in enumerate(dict.fromkeys(raw))}
        first = np.fromiter(map(lookup.__getitem__, raw), np.int64, len(raw))
        normal = np.array([_normalize(kind, v) or "" for v in lookup] or [""])
        # Slot 0 is "missing"; "" sorts before every value, so searchsorted still finds slots.
        uniques, to_slot = np.unique(normal, return_inverse=True)
        if uniques[0] != "":
            uniques, to_slot = np.concatenate(([""], uniques)), to_slot + 1
        self._index(uniques, to_slot.astype(np.int32)[first] if len(raw) else EMPTY)

    #: What :meth:`saved` gives and :meth:`restore` takes: the rest is derived in linear time.
    SAVED = (
        "uniques", "slots", "order", "char_slots", "char_sorted", "char_rank", "len_slots",
        "len_sorted",
    )  # fmt: skip

    def saved(self) -> dict[str, np.ndarray]:
        """The arrays :meth:`restore` rebuilds this index from without ranking or sorting."""
        runs = {"char_sorted": _unrun(self.char_keys), "len_sorted": _unrun(self.len_keys)}
        return {name: runs[name] if name in runs else getattr(self, name) for name in self.SAVED}

    @classmethod
    def restore(cls, kind: AttributeType, arrays) -> ValueIndex:
        """The index whose :meth:`saved` arrays are ``arrays`` (a mapping of them)."""
        index = cls.__new__(cls)
        index.kind = kind
        index._index(arrays["uniques"], arrays["slots"].astype(np.int32, copy=False), arrays)
        return index

    def _index(self, uniques: np.ndarray, slots: np.ndarray, saved=None) -> None:
        """Derive the counts, posting lists and character keys from the ranked values
        (sorted ones taken from ``saved`` when given: :meth:`restore`)."""
        kind = self.kind
        self.uniques = uniques
        self.slots = slots
        self.counts = np.bincount(self.slots, minlength=len(self.uniques))
        self.offsets = np.concatenate(([0], np.cumsum(self.counts)))
        if saved is None:
            self.order = np.argsort(self.slots, kind="stable").astype(np.int32)
        else:
            self.order = saved["order"].astype(np.int32, copy=False)
        width = self.uniques.dtype.itemsize // 4
        self.chars = self.uniques.view(np.uint32).reshape(len(self.uniques), width)
        self.width = width
        self.char_keys: dict[int, tuple[int, int]] = {}
        self.char_slots = EMPTY
        self.char_rank, self.alphabet = EMPTY, 1
        self.len_keys: dict[int, tuple[int, int]] = {}
        self.len_slots = EMPTY
        if kind is AttributeType.CATEGORY:
            return
        if saved is None:
            self._build_char_postings()
            return
        self.char_slots = saved["char_slots"].astype(np.int32, copy=False)
        self.char_rank = saved["char_rank"].astype(np.int32, copy=False)
        self.alphabet = max(int(np.count_nonzero(self.char_rank >= 0)), 1)
        self.char_keys = _postings(saved["char_sorted"])
        self.len_slots = saved["len_slots"].astype(np.int32, copy=False)
        self.len_keys = _postings(saved["len_sorted"])

    def _build_char_postings(self) -> None:
        lens = np.char.str_len(self.uniques).astype(np.int64)
        present = np.arange(self.width) < lens[:, None]
        present[0] = False
        slot, pos = np.nonzero(present)
        chars = self.chars[slot, pos]
        # Rank the characters in use, so that a key fits 16 bits and sorts by radix.
        used = np.flatnonzero(np.bincount(chars)) if chars.size else EMPTY
        self.char_rank = np.full(int(used.max(initial=0)) + 1, -1, dtype=np.int32)
        self.char_rank[used] = np.arange(len(used), dtype=np.int32)
        self.alphabet = max(len(used), 1)
        keys = (lens[slot] * self.width + pos) * self.alphabet + self.char_rank[chars]
        small = keys.astype(np.uint16) if keys.max(initial=0) < 1 << 16 else keys
        order = np.argsort(small, kind="stable")
        self.char_slots = slot[order].astype(np.int32)
        self.char_keys = _postings(keys[order])
        by_len = np.argsort(lens[1:], kind="stable")
        self.len_slots = (by_len + 1).astype(np.int32)
        self.len_keys = _postings(lens[1:][by_len])

    def _char_key(self, total: int, position: int, char: str) -> int | None:
        code = ord(char)
        if code >= len(self.char_rank) or self.char_rank[code] < 0:
            return None
        return (total * self.width + position) * self.alphabet + int(self.char_rank[code])

    @property
    def nbytes(self) -> int:
        arrays = (self.uniques, self.slots, self.counts, self.offsets, self.order)
        extra = (self.char_slots, self.len_slots)
        return sum(a.nbytes for a in arrays + extra) + 100 * len(self.char_keys)

    def allowed(self, ev: Evidence) -> np.ndarray | None:
        """Return the sorted slots consistent with ``ev`` (``None``: unconstrained)."""
        if ev.level is Level.MASKED:
            return None
        if ev.level is Level.FULL:
            value = ev.value
            if value is None:
                return np.zeros(1, dtype=np.int32)
            slot = int(np.searchsorted(self.uniques, value))
            if 0 < slot < len(self.uniques) and self.uniques[slot] == value:
                return np.array([slot], dtype=np.int32)
            return EMPTY
        if self.kind is AttributeType.CATEGORY:
            raise ValueError("a category has no partial level")
        if ev.total > self.width:
            return EMPTY
        if not ev.known:
            start, stop = self.len_keys.get(ev.total, (0, 0))
            return np.sort(self.len_slots[start:stop])
        spans = []
        for p, c in ev.known:
            key = self._char_key(ev.total, p, c)
            span = None if key is None else self.char_keys.get(key)
            if span is None:
                return EMPTY
            spans.append((span[1] - span[0], span, p, c))
        spans.sort()
        _, (start, stop), *_ = spans[0]
        slots = self.char_slots[start:stop]
        for _, _, p, c in spans[1:]:
            slots = slots[self.chars[slots, p] == ord(c)]
        return slots

    def records(self, slots: np.ndarray) -> np.ndarray:
        """Return the positions of the records whose slot is in ``slots``."""
        if len(slots) == 1:
            s = int(slots[0])
            return self.order[self.offsets[s] : self.offsets[s + 1]]
        counts = self.counts[slots]
        total = int(counts.sum())
        shift = np.repeat(self.offsets[slots] - np.cumsum(counts) + counts, counts)
        return self.order[shift + np.arange(total)]

    def member(self, positions: np.ndarray, slots: np.ndarray) -> np.ndarray:
        """Return a mask of the ``positions`` whose slot is in the sorted ``slots``."""
        values = self.slots[positions]
        if len(slots) == 1:
            return values == slots[0]
        if len(slots) <= 64 or len(self.uniques) > 8 * len(positions):
            at = np.minimum(np.searchsorted(slots, values), len(slots) - 1)
            return slots[at] == values
        mask = np.zeros(len(self.uniques), dtype=bool)
        mask[slots] = True
        return mask[values]


def _normalize(kind: AttributeType, raw: object) -> str | None:
    """Return :func:`normalize`, skipping its work for plain ASCII letters and digits."""
    if (
        kind in _PLAIN_KINDS
        and isinstance(raw, str)
        and raw.isascii()
        and raw.isalnum()
        and raw.lower() not in MISSING_TOKENS
    ):
        return raw  # nothing to strip, fold or compose: normalize() returns it unchanged
    return normalize(kind, raw)


def _postings(sorted_keys: np.ndarray) -> dict[int, tuple[int, int]]:
    """Return key -> (start, stop) of its run in ``sorted_keys``."""
    if not sorted_keys.size:
        return {}
    starts = np.flatnonzero(np.diff(sorted_keys)) + 1
    starts = np.concatenate(([0], starts))
    stops = np.append(starts[1:], len(sorted_keys))
    keys = sorted_keys[starts]
    return dict(zip(keys.tolist(), zip(starts.tolist(), stops.tolist(), strict=True), strict=True))


def _unrun(postings: dict[int, tuple[int, int]]) -> np.ndarray:
    """The sorted keys :func:`_postings` was given (each key repeated over its run)."""
    if not postings:
        return np.zeros(0, dtype=np.int64)
    keys = np.fromiter(postings, np.int64, len(postings))
    spans = np.array(list(postings.values()), dtype=np.int64)
    return np.repeat(keys, spans[:, 1] - spans[:, 0])
