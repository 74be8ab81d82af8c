"""A synthetic check's rows counted against a real source: itself in place of a record."""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np

from app.core.kapr import AnonymityIndex, Constraint, Evidence, Row

__all__ = ["StandIn", "stand_in"]


def stand_in(index: AnonymityIndex) -> StandIn:
    """``index`` as a synthetic record sees it (:class:`StandIn`): one per index, kept with it
    (its counts are remembered with the index and go with it)."""
    found = index.__dict__.get("_stand_in")
    if found is None:
        found = index.__dict__["_stand_in"] = StandIn(index)
    return found


class StandIn:
    """The index as a synthetic record of the source sees it: itself in place of a record.

    A synthetic known-truth check (docs/quality.md) is priced and counted as if its record
    were one of the source's, standing in for a record inconsistent with it: the records
    consistent with what its row discloses are the real ones plus itself, never more than
    the source holds. So ``k_i = min(n, real + 1)`` once anything is disclosed (``n`` while
    nothing is), a value's count is the real one plus one, and a check's costs move exactly
    as a real row's would. Only the ``row`` evidence model: the ``pair`` model's tables count
    record pairs, which a stand-in cannot join.
    """

    def __init__(self, index: AnonymityIndex) -> None:
        self.base = index
        self.n = index.n
        self.row_counts: dict[frozenset[Constraint], int] = {}

    def constraint(self, attribute: str, evidence: Evidence | None) -> Constraint | None:
        return self.base.constraint(attribute, evidence)

    def constraints(self, row: Row) -> dict[str, Constraint]:
        return self.base.constraints(row)

    def cube_count(self, constraints: Mapping[str, Constraint]) -> None:
        return None  # counted by select, which adds the stand-in

    def select(self, constraints: Mapping[str, Constraint], *, count_only: bool = False):
        found = self.base.select(constraints, count_only=count_only)
        if not constraints:
            return found
        if count_only:
            return min(self.n, found + 1)
        return self._with_self(found)

    def refine(self, positions: np.ndarray, constraint: Constraint) -> np.ndarray:
        real = positions[positions < self.n]
        return self._with_self(self.base.refine(real, constraint))

    def _with_self(self, real: np.ndarray) -> np.ndarray:
        """The real positions and the stand-in's (``n``), at most ``n`` of them."""
        if len(real) >= self.n:
            return real
        return np.append(real, np.int32(self.n)).astype(np.int32)

    def count(self, row: Row) -> int:
        return self.select(self.constraints(row), count_only=True)

    def value_count(self, attribute: str, value: str) -> int:
        """How many records carry ``value``: the real ones and the stand-in."""
        return min(self.n, self.base.value_count(attribute, value) + 1)
