"""Anonymity-set index over one source's records (paper Definition 4.4, spec/README.md §2).

``k_i`` is the number of records of row *i*'s source consistent with what row *i* discloses
(the ``row`` evidence model): a masked cell constrains nothing, a partial cell keeps the records
whose normalised value has the same length and the same characters at the disclosed positions,
a full cell keeps the records whose normalised value is equal.

The index is built once per source (records never change after import) and answers without
scanning the records. Per attribute a :class:`ValueIndex` maps values to *slots* and keeps
posting lists (see :mod:`app.core.kapr._value_index`). A cell's evidence becomes a
:class:`Constraint` (the sorted slots it allows and how many records have them) by working on
distinct values only. A row's records are then the smallest constraint's posting lists,
filtered by vectorised gathers of the other attributes' slots; a row constrained only by
categories and at most one other attribute is counted from precomputed tables (the "cube").
"""

from __future__ import annotations

import functools
import io
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from app.core.disclosure import AttributeType, Level
from app.core.kapr import _pair_store as pair_store
from app.core.kapr._pair_tables import PairTables
from app.core.kapr._value_index import EMPTY, ValueIndex
from app.core.kapr.evidence import Evidence, Row

__all__ = ["AnonymityIndex", "Constraint", "consistent"]

_CUBE_CELLS = 1 << 12  # combinations of category values counted in advance
_TABLE_CELLS = 1 << 22  # (values of one attribute) x (category combinations)


def consistent(value: str | None, evidence: Evidence) -> bool:
    """Return whether a normalised ``value`` is consistent with one cell's ``evidence``."""
    if evidence.level is Level.MASKED:
        return True
    if evidence.level is Level.FULL:
        return value == evidence.value
    return (
        value is not None
        and len(value) == evidence.total
        and all(value[p] == c for p, c in evidence.known)
    )


@dataclass(frozen=True, slots=True, eq=False)
class Constraint:
    """The slots of one attribute allowed by a cell's evidence, and their record count."""

    attribute: str
    slots: np.ndarray  # sorted int32
    size: int


class AnonymityIndex:
    """Count the records of one source consistent with a row's evidence (``k_i``).

    Build it once with :meth:`build`; :meth:`count` and :meth:`candidates` never scan the
    records: their cost is that of the smallest posting list involved.
    """

    def __init__(self, columns: dict[str, ValueIndex], n: int) -> None:
        self.columns = columns
        self.n = n
        self._cache: dict[tuple[str, Evidence], Constraint | None] = {}
        self.translations: dict[tuple[int, str], tuple[AnonymityIndex, np.ndarray]] = {}
        # Row-model counts already made, by constraint set (app.core.kapr.costs.RowQuery): a
        # page's rows are counted again on every preview, reload and charge.
        self.row_counts: dict[frozenset[Constraint], int] = {}
        self._cube_memo: dict[tuple, np.ndarray] = {}
        # Pair-model counts already made against this index (app.core.kapr.pair.count), its
        # count tables (built here, so they live and die with the index) and the partner
        # states and whole-source masks they derived.
        self.pair_counts: dict[tuple, tuple[AnonymityIndex, int]] = {}
        self.pair_partners: dict[tuple, object] = {}
        self.pair_masks: dict[tuple, np.ndarray] = {}
        self._build_cube()

    @functools.cached_property
    def pair_tables(self) -> PairTables:
        """The ``pair`` model's count tables, made on first use: the ``row`` model never
        needs them, and they cost a tenth of a second per 100,000 records."""
        return PairTables(self.columns, self.n)

    def _build_cube(self) -> None:
        """Count records by every combination of the categories (and one other attribute).

        A row constrained only by categories and at most one other attribute is then counted
        from these small tables instead of from posting lists of a large share of the source.
        """
        cube = [a for a, c in self.columns.items() if c.kind is AttributeType.CATEGORY]
        self.cube_dims = [len(self.columns[a].uniques) for a in cube]
        size = int(np.prod(self.cube_dims)) if cube else 0
        self.cube: list[str] = cube if 0 < size <= _CUBE_CELLS else []
        self.tables: dict[str | None, np.ndarray] = {}
        if not self.cube:
            return
        combo = np.zeros(self.n, dtype=np.int64)
        for a, dim in zip(self.cube, self.cube_dims, strict=True):
            combo = combo * dim + self.columns[a].slots
        self.tables[None] = np.bincount(combo, minlength=size)
        for a, column in self.columns.items():
            rows = len(column.uniques)
            if a not in self.cube and rows * size <= _TABLE_CELLS:
                flat = np.bincount(column.slots * size + combo, minlength=rows * size)
                self.tables[a] = flat.astype(np.int32).reshape(rows, size)

    def cube_count(self, constraints: Mapping[str, Constraint]) -> int | None:
        """Return the count from the category tables, or ``None`` when they cannot tell."""
        outside = [a for a in constraints if a not in self.cube]
        if not self.cube or len(outside) > 1:
            return None
        table = self.tables.get(outside[0] if outside else None)
        if table is None:
            return None
        cells = self._cube_cells(tuple(constraints.get(a) for a in self.cube))
        if not outside:
            return int(table[cells].sum())
        slots = constraints[outside[0]].slots
        if len(slots) == 1 and len(cells) == 1:  # one value, one combination: a lookup
            return int(table[slots[0], cells[0]])
        return int(table[slots][:, cells].sum())

    def _cube_cells(self, chosen: tuple[Constraint | None, ...]) -> np.ndarray:
        """The flat cube cells allowed by one constraint (or none) per category axis.

        Remembered by the constraint objects themselves (one per cell evidence in
        :meth:`constraint`'s cache, emptied with it), so a key never stands for another set.
        """
        cells = self._cube_memo.get(chosen)
        if cells is None:
            mask = np.ones(self.cube_dims, dtype=bool)
            for axis, constraint in enumerate(chosen):
                if constraint is not None:
                    allowed = np.zeros(self.cube_dims[axis], dtype=bool)
                    allowed[constraint.slots] = True
                    shape = [1] * len(self.cube_dims)
                    shape[axis] = -1
                    mask &= allowed.reshape(shape)
            cells = np.flatnonzero(mask)
            self._cube_memo[chosen] = cells
        return cells

    @classmethod
    def build(
        cls,
        columns: Mapping[str, Sequence[str | None]],
        kinds: Mapping[str, AttributeType | str],
    ) -> AnonymityIndex:
        """Index raw ``columns`` (attribute -> values by record position) of one source."""
        lengths = {len(v) for v in columns.values()}
        if len(lengths) > 1:
            raise ValueError("all columns must have one value per record")
        built = {a: ValueIndex(AttributeType(kinds[a]), list(v)) for a, v in columns.items()}
        return cls(built, lengths.pop() if lengths else 0)

    def dump(self) -> bytes:
        """The ranked values, every record's slot and the sorted posting lists, per attribute
        (``.npz``, no pickle), and the ``pair`` model's count tables once made.

        :meth:`load` rebuilds the same index from them without normalising, ranking or
        sorting again (what building from raw values spends its time on).
        """
        names = list(self.columns)
        arrays = {
            "n": np.array([self.n], dtype=np.int64),
            "names": np.array(names or [""], dtype=str)[: len(names)],
            "kinds": np.array([c.kind.value for c in self.columns.values()] or [""])[: len(names)],
        }
        for i, column in enumerate(self.columns.values()):
            arrays.update({f"{name}{i}": array for name, array in column.saved().items()})
        if "pair_tables" in self.__dict__:  # made already (a pair project's, at import)
            arrays.update(pair_store.saved(self.pair_tables))
        buffer = io.BytesIO()
        np.savez(buffer, **arrays)
        return buffer.getvalue()

    @classmethod
    def load(cls, data: bytes) -> AnonymityIndex:
        """The index :meth:`dump` wrote."""
        with np.load(io.BytesIO(data), allow_pickle=False) as arrays:
            names, kinds = arrays["names"].tolist(), arrays["kinds"].tolist()
            columns = {
                name: ValueIndex.restore(
                    AttributeType(kind), {a: arrays[f"{a}{i}"] for a in ValueIndex.SAVED}
                )
                for i, (name, kind) in enumerate(zip(names, kinds, strict=True))
            }
            index = cls(columns, int(arrays["n"][0]))
            tables = {k: arrays[k] for k in arrays.files if k.startswith("pt.")}
            if tables:
                index.__dict__["pair_tables"] = pair_store.restore(columns, tables)
            return index

    @property
    def nbytes(self) -> int:
        """Approximate memory held by the index arrays, in bytes."""
        tables = sum(t.nbytes for t in self.tables.values())
        if "pair_tables" in self.__dict__:  # made already
            tables += self.pair_tables.nbytes
        return sum(c.nbytes for c in self.columns.values()) + tables

    def value(self, attribute: str, position: int) -> str | None:
        """Return the normalised value of one record (``None`` when missing)."""
        slot = int(self.columns[attribute].slots[position])
        return str(self.columns[attribute].uniques[slot]) if slot else None

    def constraint(self, attribute: str, evidence: Evidence | None) -> Constraint | None:
        """Return the constraint one cell puts on the records (``None``: unconstrained)."""
        if evidence is None or evidence.level is Level.MASKED:
            return None
        key = (attribute, evidence)
        if key not in self._cache:
            if len(self._cache) > 65536:
                self._cache.clear()
                self.row_counts.clear()  # both keyed by the constraints just forgotten
                self._cube_memo.clear()
            self._cache[key] = self._allowing(attribute, self.columns[attribute].allowed(evidence))
        return self._cache[key]

    def intersect(self, one: Constraint, other: Constraint) -> Constraint:
        """The constraint of one attribute allowing what both ``one`` and ``other`` allow."""
        if one is other:
            return one
        return self._allowing(one.attribute, np.intersect1d(one.slots, other.slots))

    def _allowing(self, attribute: str, slots: np.ndarray) -> Constraint:
        size = int(self.columns[attribute].counts[slots].sum()) if len(slots) else 0
        return Constraint(attribute, slots, size)

    def constraints(self, row: Row) -> dict[str, Constraint]:
        """Return the constraints of a row's disclosed cells, by attribute."""
        found = {a: self.constraint(a, ev) for a, ev in row.items()}
        return {a: c for a, c in found.items() if c is not None}

    def select(self, constraints: Mapping[str, Constraint], *, count_only: bool = False):
        """Return the records meeting every constraint (their number if ``count_only``).

        Expands the smallest constraint and filters it by gathering the other attributes'
        slots. With ``count_only`` and a single constraint nothing is expanded.
        """
        if not constraints:
            return self.n if count_only else np.arange(self.n, dtype=np.int32)
        ordered = sorted(constraints.values(), key=lambda c: c.size)
        if ordered[0].size == 0:
            return 0 if count_only else EMPTY
        if count_only and len(ordered) == 1:
            return ordered[0].size
        if count_only and (counted := self.cube_count(constraints)) is not None:
            return counted
        positions = self.columns[ordered[0].attribute].records(ordered[0].slots)
        for c in ordered[1:]:
            if not len(positions):
                break
            positions = positions[self.columns[c.attribute].member(positions, c.slots)]
        if count_only:
            return len(positions)
        if len(ordered[0].slots) == 1:  # one posting list (sorted), filtered or copied
            return positions if len(ordered) > 1 else positions.copy()
        if len(positions) * 16 < self.n:  # sorted posting lists: stable sort merges runs
            return np.sort(positions, kind="stable")
        chosen = np.zeros(self.n, dtype=bool)  # many records: a mask sorts in linear time
        chosen[positions] = True
        return np.flatnonzero(chosen).astype(np.int32)

    def refine(self, positions: np.ndarray, constraint: Constraint) -> np.ndarray:
        """Return the ``positions`` that also meet ``constraint``."""
        column = self.columns[constraint.attribute]
        return positions[column.member(positions, constraint.slots)]

    def count(self, row: Row) -> int:
        """Return ``k_i`` under the ``row`` model: records consistent with ``row``."""
        return self.select(self.constraints(row), count_only=True)

    def candidates(self, row: Row) -> np.ndarray:
        """Return the sorted positions of the records consistent with ``row``."""
        return self.select(self.constraints(row))

    def value_count(self, attribute: str, value: str) -> int:
        """How many records carry the normalised ``value`` (a name's frequency)."""
        constraint = self.constraint(attribute, Evidence.full(value))
        return 0 if constraint is None else constraint.size
