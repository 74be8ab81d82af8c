"""The partner side of a ``pair``-model count: which records may stand beside row *i*.

:class:`Partners` is the set ``B`` of :mod:`app.core.kapr.pair.count` (records of the partner's
source consistent with the partner row and with the markers' presence on the partner's side),
kept implicit: a masked partner's ``B`` is "every complete record" (plus the few incomplete
records the presence pattern admits), so its terms are lookups in :class:`PairTables`. Only a
partner that discloses something materialises its records, once per partner state.

:meth:`Partners.count` tells, for records ``r`` of the same source, how many partners agree
with ``r`` on a subset of heavy attributes (a table lookup; for a partner disclosing a category,
a lookup at ``r``'s code with that category's value put in; otherwise counts over its
records). Counts the tables do not reach walk lists instead (:mod:`app.core.kapr.pair._walk`).
"""

from __future__ import annotations

import numpy as np

from app.core.kapr.anonymity import AnonymityIndex, Constraint

__all__ = ["Partners"]

# Count explicit partner records per code in a dense array up to this many codes.
_DENSE_LOOKUP = 1 << 22
# A dense count per code is made for at least 1/_BY_ROW lookups per code (the table's size).
_BY_ROW = 8
# A partner constrained to at most this many values of one heavy attribute is counted from
# the tables, one lookup per value (see Partners._swapped).
_SWAPPED = 4


class Partners:
    """The partner records ``B`` of one partner state (see the module docstring)."""

    def __init__(
        self, index: AnonymityIndex, constraints: dict[str, Constraint], care: int, want: int
    ) -> None:
        self.index, self.tables = index, index.pair_tables
        self.constraints, self.care, self.want = constraints, care, want
        # Complete records meet the presence pattern unless it asks for a missing value.
        self.complete_ok = not want
        extra = self.tables.incomplete
        extra = extra[self.tables.matches(extra, care, want)]
        for c in constraints.values():
            extra = extra[index.columns[c.attribute].member(extra, c.slots)]
        self.extra = extra  # the incomplete partner records
        self._complete: np.ndarray | None = None
        self._records: np.ndarray | None = None
        self._counted: dict[tuple[frozenset[str], bool], tuple] = {}
        self._held: dict[str, np.ndarray] = {}
        #: The partner records grouped by their key over an agree set (:mod:`pair_walk`).
        self.groups: dict[frozenset[str], tuple | None] = {}

    def complete_records(self) -> np.ndarray:
        """The complete partner records (materialised: only when the partner discloses)."""
        if self._complete is None:
            chosen = self.index.select(self.constraints)
            self._complete = chosen[self.tables.missing[chosen] == 0]
        return self._complete

    def size(self) -> int:
        if not self.complete_ok:
            return len(self.extra)
        base = self.tables.complete if not self.constraints else len(self.complete_records())
        return base + len(self.extra)

    def records(self) -> np.ndarray:
        """All partner records, sorted (materialised once)."""
        if not self.complete_ok:
            return self.extra
        if not self.constraints:
            return self.tables.pattern(self.care, self.want)
        if self._records is None:
            # Two sorted runs: a stable sort merges them in linear time (quicksort would
            # take ~20x longer on half a million records).
            both = np.concatenate((self.complete_records(), self.extra))
            self._records = np.sort(both, kind="stable")
        return self._records

    def near(self, rows: np.ndarray, identical: frozenset[str]) -> np.ndarray:
        """Keep the ``rows`` sharing their ``identical`` values with some partner (one lookup)."""
        records = self.records()
        if len(records) >= len(rows):
            return rows
        tables = self.tables
        heavy = identical & tables.heavy
        if heavy:
            size, values = len(tables.counts[heavy]), lambda at: tables.code(heavy, at)
        else:
            column = self.index.columns[min(sorted(identical), key=tables.agreement.get)]
            size, values = len(column.uniques), column.slots.__getitem__
        allowed = np.zeros(size, dtype=bool)
        allowed[values(records)] = True
        return rows[allowed[values(rows)]]

    def holds(self, attr: str, rows: np.ndarray) -> np.ndarray:
        """Return a mask of the ``rows`` whose value of ``attr`` some partner record has
        (the explicit records only: for a partner that discloses or asks for a gap)."""
        found = self._held.get(attr)
        if found is None:
            column = self.index.columns[attr]
            found = np.zeros(len(column.uniques), dtype=bool)
            found[column.slots[self.records()]] = True
            self._held[attr] = found
        return found[self.index.columns[attr].slots[rows]]

    def contains(self, positions: np.ndarray) -> np.ndarray:
        """Return a mask of the ``positions`` that are partner records."""
        ok = self.tables.matches(positions, self.care, self.want)
        for c in self.constraints.values():
            ok &= self.index.columns[c.attribute].member(positions, c.slots)
        return ok

    def all_complete(self) -> bool:
        """Whether every complete record is a partner record (a masked partner whose
        presence pattern asks for no missing value)."""
        return self.complete_ok and not self.constraints

    def implicit(self) -> bool:
        """Whether the partners are exactly the complete records (and no incomplete one):
        counts are then the tables'."""
        return self.all_complete() and not len(self.extra)

    def within(self, care: int, want: int) -> bool | None:
        """Whether every record whose missing bits under ``care`` equal ``want`` is a partner
        record (``True``), none is (``False``), or it depends on the record (``None``)."""
        if self.constraints or care != self.care:
            return None
        return want == self.want

    def count(
        self, attrs: frozenset[str], rows: np.ndarray, memo=None, *, keep: bool = False
    ) -> np.ndarray:
        """For each record at ``rows``, the partners agreeing with it on heavy ``attrs``
        (``memo``: see :meth:`PairTables.code`; ``keep``: gather from the tables' kept
        per-record counts, for terms other masks ask again)."""
        if not attrs:
            return np.full(len(rows), self.size(), dtype=np.int64)
        if keep and self.all_complete():
            out = self.tables.per_record(attrs)[rows].astype(np.int64)
            if len(self.extra):
                out += self._lookup(attrs, self.tables.code(attrs, rows, memo), True)
            return out
        code = self.tables.code(attrs, rows, memo)
        if self.implicit():
            return self.tables.counts[attrs][code].astype(np.int64)
        out = np.zeros(len(rows), dtype=np.int64)
        if self.complete_ok:
            if not self.constraints or set(self.constraints) <= attrs:
                out += self.tables.counts[attrs][code]
                if self.constraints:  # a partner agreeing on them meets them iff r does
                    out *= self._meets(rows)
            elif (swapped := self._swapped(attrs, rows)) is not None:
                out += swapped
            else:
                out += self._lookup(attrs, code, False)
        if len(self.extra):
            out += self._lookup(attrs, code, True)
        return out

    def _swapped(self, attrs: frozenset[str], rows: np.ndarray) -> np.ndarray | None:
        """The complete partner records agreeing with each row on heavy ``attrs``, for a
        partner constrained to a few values of one heavy attribute ``a`` outside ``attrs`` (a
        disclosed category): the complete records with the row's values on ``attrs`` and
        value ``v`` on ``a`` are one table lookup, at the row's code over ``attrs ∪ {a}`` with
        its ``a`` replaced by ``v``. ``None`` when the codes cannot be rebuilt so."""
        if len(self.constraints) != 1:
            return None
        ((a, c),) = self.constraints.items()
        if a not in self.tables.heavy or len(c.slots) > _SWAPPED:
            return None
        both, out = attrs | {a}, np.zeros(len(rows), dtype=np.int64)
        for v in c.slots.tolist():
            code = self.tables.code_with(both, rows, a, v)
            if code is None:
                return None
            out += self.tables.counts[both][code]
        return out

    def most(self, attrs: frozenset[str]) -> int:
        """An upper bound of :meth:`count` over heavy ``attrs`` (non-empty) at any record:
        the most complete records of one code (if they may be partners), plus the most
        incomplete partner records of one code."""
        most = self.tables.most(attrs) if self.complete_ok else 0
        if len(self.extra):
            most += int(self._counts(attrs, True, dense=False)[-1].max(initial=0))
        return most

    def _meets(self, rows: np.ndarray) -> np.ndarray:
        ok = np.ones(len(rows), dtype=bool)
        for c in self.constraints.values():
            ok &= self.index.columns[c.attribute].member(rows, c.slots)
        return ok

    def _counts(self, attrs: frozenset[str], extra: bool, dense: bool) -> tuple[np.ndarray, ...]:
        """The explicit partner records (``extra`` or complete) per code over ``attrs``: a
        dense count per code, or the codes that occur and their counts."""
        found = self._counted.get((attrs, extra, dense))
        if found is None:
            records = self.extra if extra else self.complete_records()
            codes = self.tables.code(attrs, records)
            if dense:
                size = len(self.tables.counts[attrs])
                found = (np.bincount(codes, minlength=size).astype(np.int32),)
            else:
                found = np.unique(codes, return_counts=True)
            self._counted[attrs, extra, dense] = found
        return found

    def _lookup(self, attrs: frozenset[str], code: np.ndarray, extra: bool) -> np.ndarray:
        """Counts of ``code`` among the explicit partner records (``extra`` or complete)."""
        size = len(self.tables.counts[attrs])
        records = len(self.extra) if extra else self.size() - len(self.extra)
        # A dense table when a gather beats a search, and when its making (one pass over the
        # codes, ~16 MB at 2M codes) pays: a few rows asking count only the partner records
        # that share their codes (or search the codes that occur, when already listed).
        dense = (size <= _DENSE_LOOKUP or size <= 4 * records) and size <= _BY_ROW * len(code)
        if not dense and (attrs, extra, False) not in self._counted:
            return self._probe(attrs, code, extra)
        found = self._counts(attrs, extra, dense)
        if len(found) == 1:
            return found[0][code]
        return _search(*found, code)

    def _probe(self, attrs: frozenset[str], code: np.ndarray, extra: bool) -> np.ndarray:
        """Counts of ``code`` among the explicit partner records, for a few rows: keeps the
        records whose code a row asks for (one gather each) and counts only those, instead
        of sorting every partner's code."""
        records = self.extra if extra else self.complete_records()
        theirs = self.tables.code(attrs, records)
        asked = np.zeros(len(self.tables.counts[attrs]), dtype=bool)
        asked[code] = True
        return _search(*np.unique(theirs[asked[theirs]], return_counts=True), code)

    def by_pivot(self, agree: frozenset[str], differ) -> np.ndarray | None:
        """A mask of all records with a partner agreeing on ``agree`` (holding the pivot of
        :class:`PairTables`) and differing on ``differ``, from its list of pairs; ``None``
        when there is none. One pass over the pairs, whatever the rows asked for."""
        tables = self.tables
        if tables.pairs is None or tables.pivot not in agree:
            return None
        i, j, agreed, differed = tables.pairs
        kind = agreed.dtype.type
        want_a, want_d = (
            kind(sum(tables.bit[a] for a in agree)),
            kind(sum(tables.bit[a] for a in differ)),
        )
        ok = (agreed & want_a) == want_a
        if want_d:
            ok &= (differed & want_d) == want_d
        i, j = i[ok], j[ok]
        found = np.zeros(self.index.n, dtype=bool)
        found[i[self.contains(j)]] = True  # r = i with partner j, and the other way round
        found[j[self.contains(i)]] = True
        return found


def _search(keys: np.ndarray, counts: np.ndarray, code: np.ndarray) -> np.ndarray:
    """The count of each of ``code`` among sorted ``keys`` (0 where it does not occur)."""
    if not len(keys):
        return np.zeros(len(code), dtype=np.int64)
    at = np.minimum(np.searchsorted(keys, code), len(keys) - 1)
    return np.where(keys[at] == code, counts[at], 0)
