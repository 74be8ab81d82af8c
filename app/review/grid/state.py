"""The disclosure state of displayed pairs, built from records and stored levels.

Plain objects over the disclosure engine and the KAPR core: no queries here. Row 0 shows the
pair's record A (the "left" side of the KAPR core), row 1 its record B ("right").
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from functools import lru_cache

from app.core import disclosure
from app.core.disclosure import AttributeType, CellView, Comparison, Level, name_columns
from app.core.disclosure import marks as disclosure_marks
from app.core.kapr import Evidence, Marker, PairView

SIDE_NAMES = ("left", "right")


@dataclass(frozen=True)
class Attribute:
    id: int
    name: str
    kind: AttributeType


def name_attributes(attributes: Sequence[Attribute]) -> tuple[str, str] | None:
    """The (first name, last name) attributes, when the schema has both."""
    first, last = name_columns(a.name for a in attributes)
    return (first, last) if first and last else None


# Comparisons and evidence are pure functions of the values: pages and reveals ask for the
# same pairs again and again, so keep them for the process (values are hashable strings).
@lru_cache(maxsize=1 << 15)
def _compare(kind: AttributeType, a: str | None, b: str | None) -> Comparison:
    return disclosure.compare(kind, a, b)


@lru_cache(maxsize=1 << 17)
def _evidence(kind, a: str | None, b: str | None, row: int, level: Level) -> Evidence:
    cmp = _compare(kind, a, b)
    return Evidence.trusted(level, cmp.total(row), disclosure.shown(cmp, row, level))


@lru_cache(maxsize=1 << 17)
def _next_evidence(kind, a: str | None, b: str | None, row: int, level: Level) -> Evidence | None:
    level = disclosure.next_level(_compare(kind, a, b), row, level)
    return None if level is None else _evidence(kind, a, b, row, level)


@dataclass
class PairState:
    """One displayed pair: both records' values, their comparisons and the stored levels."""

    pair_id: int
    attributes: Sequence[Attribute]
    values: tuple[Mapping[str, str | None], Mapping[str, str | None]]
    levels: dict[tuple[int, str], Level] = field(default_factory=dict)
    comparisons: dict[str, Comparison] = field(init=False)
    name_swap: bool = field(init=False)

    def __post_init__(self) -> None:
        a, b = self.values
        self.comparisons = {
            attr.name: _compare(attr.kind, a.get(attr.name), b.get(attr.name))
            for attr in self.attributes
        }
        names = name_attributes(self.attributes)
        self.name_swap = bool(names) and disclosure_marks.name_swap(
            a.get(names[0]), a.get(names[1]), b.get(names[0]), b.get(names[1])
        )
        self._names = set(names) if names and self.name_swap else set()
        # Values never change, so a cell at a level always renders the same: keep it.
        self._views: dict[tuple[int, str, Level], CellView] = {}
        self.markers = {
            attr.name: Marker.between(a.get(attr.name), b.get(attr.name))
            for attr in self.attributes
        }

    def level(self, row: int, attribute: str) -> Level:
        return self.levels.get((row, attribute), Level.MASKED)

    def next_level(self, row: int, attribute: str) -> Level | None:
        return disclosure.next_level(self.comparisons[attribute], row, self.level(row, attribute))

    def view(self, row: int, attribute: str, level: Level | None = None) -> CellView:
        level = self.level(row, attribute) if level is None else level
        key = (row, attribute, level)
        cell = self._views.get(key)
        if cell is None:
            cell = disclosure.view(self.comparisons[attribute], row, level)
            if attribute in self._names and level is Level.MASKED:
                cell = disclosure.add_marker(cell, "name_swap")
            self._views[key] = cell
        return cell

    def evidence(self, row: int, attribute: str, level: Level | None = None) -> Evidence:
        """What the cell discloses at ``level``: the ``known`` of :meth:`view`, unrendered."""
        level = self.level(row, attribute) if level is None else level
        cmp = self.comparisons[attribute]
        return _evidence(cmp.kind, *cmp.values, row, level)

    def next_evidence(self, row: int, attribute: str) -> Evidence | None:
        """What the cell would disclose at its next level (``None``: nothing further)."""
        cmp = self.comparisons[attribute]
        return _next_evidence(cmp.kind, *cmp.values, row, self.level(row, attribute))

    def pair_view(self) -> PairView:
        rows = [{a.name: self.evidence(row, a.name) for a in self.attributes} for row in (0, 1)]
        return PairView(rows[0], rows[1], self.markers)

    def characters(self) -> tuple[int, int]:
        """(disclosed, total) characters over the pair's cells."""
        disclosed = total = 0
        for row in (0, 1):
            for a in self.attributes:
                cell = self.view(row, a.name)
                disclosed += cell.disclosed
                total += cell.total
        return disclosed, total
