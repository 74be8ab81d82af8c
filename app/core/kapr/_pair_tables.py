"""Count tables for the ``pair`` evidence model, built with an :class:`AnonymityIndex`.

The ``pair`` model asks, for a record ``r``, how many partner records agree with ``r`` on a set
``T`` of attributes (one inclusion-exclusion term). These tables answer that with one gather
per term instead of sorting whole-source keys:

- ``missing``: per record, a bit mask of the attributes it has no value for; a marker's presence
  condition on a side is then one mask test. ``incomplete`` lists the records with any bit set.
- For the *heavy* attributes (those whose values are shared by many records: categories, common
  names; at most :data:`MAX_HEAVY` of them) and every subset ``T`` of them (at most 2^D): a
  dense *code* per record (the rank of the record's composite key over ``T``; the slot itself
  for one attribute) and the number of *complete* records (no value missing) per code.

Terms over a *light* attribute (an id, a date: few records share a value) are counted by
walking that attribute's posting lists instead, which is short by definition; so the tables
leave out every subset holding one. Records never change under an index, so neither do the
tables: a new import builds a new index.
"""

from __future__ import annotations

from itertools import combinations

import numpy as np

from app.core.kapr._value_index import EMPTY, ValueIndex

__all__ = ["MAX_HEAVY", "PairTables"]

#: An attribute gets tables when a record shares its value with more records than this on
#: average (the expected posting-list length a walk through it would cost).
HEAVY_GROUP = 16
# A subset's codes are derived, not stored, when its keys span at most this many per record.
_DENSE = 4
#: Tables cover subsets of at most this many heavy attributes (the heaviest ones).
MAX_HEAVY = 6
#: A heavy attribute whose values two records share with at least this probability is
#: expanded exactly in the inclusion-exclusion (categories), not bounded order by order.
SHARED = 1 / 32
# Per-record counts kept for every record (bytes, all subsets together; see :meth:`per_record`).
_PER_RECORD_BYTES = 16 << 20


def _uint(size: int) -> np.dtype:
    """The smallest unsigned dtype holding ``range(size)``, int32 beyond 16 bits."""
    if size <= 1 << 8:
        return np.dtype(np.uint8)
    if size <= 1 << 16:
        return np.dtype(np.uint16)
    return np.dtype(np.int32) if size < 1 << 31 else np.dtype(np.int64)


class PairTables:
    """Presence bits and per-subset count tables of one source (see the module docstring)."""

    def __init__(self, columns: dict[str, ValueIndex], n: int) -> None:
        names = list(columns)
        self.bit = {a: 1 << i for i, a in enumerate(names)}
        self.missing = np.zeros(n, dtype=np.uint64 if len(names) > 32 else _uint(1 << len(names)))
        for a, column in columns.items():
            self.missing[column.slots == 0] |= self.missing.dtype.type(self.bit[a])
        self.incomplete = np.flatnonzero(self.missing).astype(np.int32)
        complete = self.missing == 0
        self.complete = int(np.count_nonzero(complete))
        present = {a: max(n - int(c.counts[0]), 1) for a, c in columns.items()}
        sharing = {
            a: float((c.counts[1:].astype(np.float64) ** 2).sum()) / present[a]
            for a, c in columns.items()
        }
        #: The probability that two records with values agree on each attribute.
        self.agreement = {a: sharing[a] / present[a] for a in names}
        ranked = sorted((a for a in names if sharing[a] > HEAVY_GROUP), key=lambda a: -sharing[a])
        self.heavy = frozenset(ranked[:MAX_HEAVY])
        self.slots = {a: c.slots for a, c in columns.items()}
        # A subset's codes are stored, or derived from a subset's as ``code * radix + slot``.
        self.codes: dict[frozenset[str], np.ndarray] = {}
        self.derived: dict[frozenset[str], tuple[frozenset[str], str, int]] = {}
        self.counts: dict[frozenset[str], np.ndarray] = {}
        self._representatives: dict[frozenset[str], np.ndarray] = {}
        self.kept: dict[frozenset[str], np.ndarray] = {}
        self._most: dict = {}
        ordered = [a for a in names if a in self.heavy]
        for size in range(1, len(ordered) + 1):
            for combo in combinations(ordered, size):
                self._add(combo, columns, complete, n)
        # Per record, how many records share its values of a heavy and a light attribute
        # (all records, saturated at 255): a one-byte upper bound for terms the tables skip.
        self.both: dict[tuple[str, str], np.ndarray] = {}
        for h in ordered:
            for f in (a for a in names if a not in self.heavy):
                key = columns[h].slots.astype(np.int64) * len(columns[f].uniques)
                _, inverse, counts = np.unique(
                    key + columns[f].slots, return_inverse=True, return_counts=True
                )
                self.both[h, f] = np.minimum(counts, 255).astype(np.uint8)[inverse]
        light = [a for a in names if a not in self.heavy]
        #: The light attribute records share least (an id), and the pairs of records sharing
        #: a value of it (see :meth:`_pair_up`); ``None`` when it has too many such pairs.
        self.pivot: str | None = min(light, key=self.agreement.get) if light else None
        self.pairs: tuple[np.ndarray, ...] | None = None
        if self.pivot is not None:
            self.pairs = self._pair_up(columns, n)
        self.n_pairs = len(self.pairs[0]) if self.pairs is not None else 0

    def _add(self, combo, columns: dict[str, ValueIndex], complete: np.ndarray, n: int) -> None:
        attrs, column = frozenset(combo), columns[combo[-1]]
        if len(combo) == 1:
            code, size = column.slots, len(column.uniques)
            self.codes[attrs] = code
        else:
            parent, radix = frozenset(combo[:-1]), len(column.uniques)
            everyone = np.arange(n)
            code = self.code(parent, everyone).astype(np.int64) * radix + column.slots
            size = len(self.counts[parent]) * radix
            if size > _DENSE * n + 1024:  # sparse: rank the keys that occur, store the ranks
                uniques, code = np.unique(code, return_inverse=True)
                size = len(uniques)
                self.codes[attrs] = code.astype(_uint(size))
            else:  # dense: derive the key when asked (two gathers) instead of storing it
                self.derived[attrs] = (parent, combo[-1], radix)
        counts = np.bincount(code[complete], minlength=size)
        self.counts[attrs] = counts.astype(_uint(int(counts.max(initial=0)) + 1))

    def _pair_up(self, columns: dict[str, ValueIndex], n: int) -> tuple[np.ndarray, ...] | None:
        """List every unordered pair of records sharing a value of the pivot, with the bits of
        the attributes they agree on and those they differ on (both present, each).

        A markers pattern whose identical attributes hold the pivot is then answered for
        every record by one pass over these pairs (``app.core.kapr.pair._partners``). Kept only
        while there are at most ``n`` pairs (an id: a few duplicates per person).
        """
        column = columns[self.pivot]
        sizes = column.counts.astype(np.int64)
        sizes[0] = 0  # a missing value agrees with nothing
        if int((sizes * (sizes - 1) // 2).sum()) > n:
            return None
        groups = np.flatnonzero(sizes >= 2)
        sizes, starts = sizes[groups], column.offsets[groups]
        firsts, seconds = [], []
        for q in range(1, int(sizes.max(initial=0))):
            at = starts[sizes > q]
            firsts.append(np.repeat(at, q) + np.tile(np.arange(q), len(at)))
            seconds.append(np.repeat(at + q, q))
        i = column.order[np.concatenate(firsts)] if firsts else EMPTY
        j = column.order[np.concatenate(seconds)] if seconds else EMPTY
        agree = np.zeros(len(i), dtype=self.missing.dtype)
        differ = np.zeros(len(i), dtype=self.missing.dtype)
        for a, c in columns.items():
            mine, theirs, bit = c.slots[i], c.slots[j], self.missing.dtype.type(self.bit[a])
            both = (mine != 0) & (theirs != 0)
            agree[both & (mine == theirs)] |= bit
            differ[both & (mine != theirs)] |= bit
        return i, j, agree, differ

    def code(self, attrs: frozenset[str], positions: np.ndarray, memo=None) -> np.ndarray:
        """Return the codes over heavy ``attrs`` of the records at ``positions``.

        ``memo`` (a dict, for one ``positions``) keeps the codes derived on the way.
        """
        if memo is not None and attrs in memo:
            return memo[attrs]
        stored = self.codes.get(attrs)
        if stored is not None:
            code = stored[positions]
        else:
            parent, attr, radix = self.derived[attrs]
            code = self.code(parent, positions, memo).astype(np.int64)
            code *= radix
            code += self.slots[attr][positions]
        if memo is not None:
            memo[attrs] = code
        return code

    def code_with(
        self, attrs: frozenset[str], positions: np.ndarray, attr: str, slot: int
    ) -> np.ndarray | None:
        """The codes over heavy ``attrs`` of the records at ``positions`` with their slot of
        ``attr`` (in ``attrs``) replaced by ``slot``; ``None`` when a ranked code lies on the
        way from ``attr`` to ``attrs`` (only derived codes can be rebuilt with another slot)."""
        if attrs == {attr}:
            return np.full(len(positions), slot, dtype=np.int64)
        if attrs not in self.derived:
            return None
        parent, last, radix = self.derived[attrs]
        if last == attr:
            code = self.code(parent, positions).astype(np.int64)
            code *= radix
            return code + slot
        code = self.code_with(parent, positions, attr, slot)
        if code is None:
            return None
        code *= radix
        return code + self.slots[last][positions]

    @property
    def nbytes(self) -> int:
        own = sum(c.nbytes for t, c in self.codes.items() if len(t) > 1)  # singles are slots
        own += sum(c.nbytes for c in self.both.values())
        own += sum(a.nbytes for a in self.pairs) if self.pairs is not None else 0
        return own + sum(c.nbytes for c in self.counts.values()) + self.missing.nbytes

    def representatives(self, attrs: frozenset[str]) -> np.ndarray:
        """For each code over heavy ``attrs``, one record having it (any, when none has)."""
        found = self._representatives.get(attrs)
        if found is None:
            everyone = np.arange(len(self.missing), dtype=np.int32)
            found = np.zeros(len(self.counts[attrs]), dtype=np.int32)
            found[self.code(attrs, everyone)] = everyone
            self._representatives[attrs] = found  # computed once, on first use
        return found

    def per_record(self, attrs: frozenset[str]) -> np.ndarray:
        """For every record, the complete records sharing its code over heavy ``attrs``.

        Kept (at most :data:`_PER_RECORD_BYTES` together, ~2 MB a subset at 1M records): the
        masks of one page ask the same few subsets (the identical attributes with the shared
        categories) at almost every record, so each is one gather after the first.
        """
        found = self.kept.get(attrs)
        if found is None:
            found = self.counts[attrs][self.code(attrs, slice(None))]
            kept = sum(a.nbytes for a in list(self.kept.values()))
            if kept + found.nbytes > _PER_RECORD_BYTES:
                self.kept.clear()  # coarse, but atomic under concurrent requests
            self.kept[attrs] = found
        return found

    def most(self, attrs: frozenset[str]) -> int:
        """The largest number of complete records sharing one code over heavy ``attrs``."""
        found = self._most.get(attrs)
        if found is None:
            found = self._most[attrs] = int(self.counts[attrs].max(initial=0))
        return found

    def most_both(self, heavy: frozenset[str], light: str) -> int:
        """The largest value :meth:`light_bound` adds one to, for ``heavy`` (non-empty), over
        the records with a value of ``light`` (the rows a "different" marker leaves)."""
        h = min(sorted(heavy), key=self.agreement.__getitem__)
        found = self._most.get((h, light))
        if found is None:
            present = self.both[h, light][self.slots[light] != 0]
            found = self._most[h, light] = int(present.max(initial=0))
        return found

    def light_bound(
        self, rows: np.ndarray, light: str, heavy: frozenset[str], columns
    ) -> np.ndarray:
        """An upper bound of the records other than ``r`` sharing ``r``'s value of ``light``
        and of every attribute of ``heavy`` (all records, whatever the partner shows)."""
        if heavy:  # the heavy attribute with the least shared values bounds best
            h = min(sorted(heavy), key=self.agreement.__getitem__)
            return self.both[h, light][rows].astype(np.int64) - 1
        column = columns[light]
        return column.counts[column.slots[rows]] - 1

    def pattern(self, care: int, want: int) -> np.ndarray:
        """Return the records whose missing bits under ``care`` equal ``want``, sorted (as
        intp: a whole-source mask gathers and scatters by them, and int32 would be cast)."""
        if not care:
            return np.arange(len(self.missing))
        return np.flatnonzero(self.matches(slice(None), care, want))

    def matches(self, positions: np.ndarray, care: int, want: int) -> np.ndarray:
        """Return a mask of the ``positions`` whose missing bits under ``care`` equal ``want``."""
        bits = self.missing[positions] & self.missing.dtype.type(care)
        return bits == self.missing.dtype.type(want)
