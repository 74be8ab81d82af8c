"""What one displayed row discloses, as plain data (paper §4.2, spec/README.md §1-2).

The disclosure engine renders cells; the KAPR core only needs to know, per cell, which
characters of the *normalised* value (:func:`app.core.disclosure.attributes.normalize`) are
shown, and per pair, how the two values of each attribute relate (the markers). Both are frozen
dataclasses so the service can build them from stored levels and cache them.
"""

from __future__ import annotations

import enum
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from fractions import Fraction

from app.core.disclosure import Level

__all__ = ["Evidence", "Marker", "Relation", "Row", "Markers"]


@dataclass(frozen=True, slots=True)
class Evidence:
    """The disclosed part of one cell.

    ``total`` is the number of characters of the normalised value (``n_ij`` of Definition 4.3;
    0 for a missing value, 1 for a category); ``known`` holds the disclosed ``(position,
    character)`` pairs (``d_ij`` of them). At :attr:`Level.FULL` every position is known, and a
    category's single "character" is its whole value: ``Evidence(FULL, 1, ((0, "Black"),))``.
    """

    level: Level
    total: int
    known: tuple[tuple[int, str], ...] = ()

    def __post_init__(self) -> None:
        level = Level(self.level)
        object.__setattr__(self, "level", level)
        known = tuple(sorted(self.known))
        object.__setattr__(self, "known", known)
        positions = [p for p, _ in known]
        if self.total < 0 or len(set(positions)) != len(positions):
            raise ValueError(f"invalid evidence {self!r}")
        if any(not 0 <= p < self.total for p in positions):
            raise ValueError(f"known position outside the value: {self!r}")
        if level is Level.MASKED and known:
            raise ValueError("a masked cell discloses no character")
        if level is Level.FULL and len(known) != self.total:
            raise ValueError("a full cell discloses every character")
        if level is Level.PARTIAL and any(len(c) != 1 for _, c in known):
            raise ValueError("a partial cell discloses single characters")

    @property
    def p(self) -> Fraction:
        """Proportion of characters disclosed, ``p_ij = d_ij / n_ij`` (0 when ``n_ij = 0``)."""
        if self.total == 0:
            return Fraction(0)
        return Fraction(len(self.known), self.total)

    @property
    def value(self) -> str | None:
        """The whole normalised value of a full cell (``None`` for a missing one)."""
        if self.level is not Level.FULL:
            raise ValueError("only a full cell discloses its value")
        return "".join(c for _, c in self.known) if self.total else None

    def refines(self, other: Evidence | None) -> bool:
        """Return whether this evidence discloses at least what ``other`` does."""
        if other is None or other.level is Level.MASKED:
            return True
        return (
            self.level.rank >= other.level.rank
            and self.total == other.total
            and set(other.known) <= set(self.known)
        )

    @classmethod
    def trusted(cls, level: Level, total: int, known: tuple[tuple[int, str], ...]) -> Evidence:
        """Return evidence without the checks, for ``known`` valid and sorted by construction.

        ``level`` must be a :class:`Level`; :func:`app.core.disclosure.display.shown` gives such
        ``known``; the hover previews build
        evidence for every cell of a page and the checks would cost more than the rest.
        """
        evidence = object.__new__(cls)
        for name, value in (("level", level), ("total", total), ("known", known)):
            object.__setattr__(evidence, name, value)
        return evidence

    @classmethod
    def masked(cls, value: str | None = None) -> Evidence:
        """Return the evidence of a masked cell (its value is irrelevant)."""
        return cls(Level.MASKED, len(value) if value else 0)

    @classmethod
    def full(cls, value: str | None, *, category: bool = False) -> Evidence:
        """Return the evidence of a fully disclosed normalised ``value``."""
        if value is None:
            return cls(Level.FULL, 0)
        if category:
            return cls(Level.FULL, 1, ((0, value),))
        return cls(Level.FULL, len(value), tuple(enumerate(value)))

    @classmethod
    def partial(cls, value: str, positions: Iterable[int]) -> Evidence:
        """Return the evidence of ``value`` shown at ``positions`` only."""
        return cls(Level.PARTIAL, len(value), tuple((p, value[p]) for p in set(positions)))


class Relation(enum.StrEnum):
    """How the two values of an attribute in a displayed pair relate (the pair's markers)."""

    IDENTICAL = "identical"
    DIFFERENT = "different"
    MISSING = "missing"


@dataclass(frozen=True, slots=True)
class Marker:
    """The relation the display shows for one attribute of a pair, at any level.

    ``IDENTICAL`` and ``DIFFERENT`` are between two present values; ``MISSING`` says which
    side(s) lack a value (the other side, if any, has one).
    """

    relation: Relation
    left_missing: bool = False
    right_missing: bool = False

    def __post_init__(self) -> None:
        relation = Relation(self.relation)
        object.__setattr__(self, "relation", relation)
        missing = self.left_missing or self.right_missing
        if missing != (relation is Relation.MISSING):
            raise ValueError(f"inconsistent marker {self!r}")

    @classmethod
    def between(cls, left: str | None, right: str | None) -> Marker:
        """Return the marker the display shows for two normalised values."""
        if left is None or right is None:
            return cls(Relation.MISSING, left is None, right is None)
        return cls(Relation.IDENTICAL if left == right else Relation.DIFFERENT)

    def missing(self, side: str) -> bool:
        """Return whether the value on ``side`` ("left" or "right") is missing."""
        return self.left_missing if side == "left" else self.right_missing


#: One displayed row: attribute name -> evidence (an absent attribute is masked).
Row = Mapping[str, Evidence]
#: One displayed pair's markers: attribute name -> marker (an absent attribute shows none).
Markers = Mapping[str, Marker]
