"""The displayed state of a pair: exactly what a worker's page draws, and nothing else.

:func:`shown_pair` is the one place that reads a pair's values: it keeps, per attribute, the
relation marker, each side's level, the mark of every position and the characters the level
discloses, the name-swap marker and the frequency marker. Everything the advisor computes is a
function of a :class:`Shown` (and of the costs the page previews), so two pairs that display
alike get the same advice whatever their hidden characters (docs/advice.md §4).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from app.core.advice.display.perception import IDENTICAL, MISSING, classify
from app.core.disclosure import AttributeType, Comparison, Level
from app.core.disclosure import shown as disclosed_characters

__all__ = ["AttributeShown", "Read", "Reading", "SideShown", "Shown", "levels_of", "shown_pair"]


@dataclass(frozen=True, slots=True)
class SideShown:
    """One cell: its level, the mark of each position and the ``(position, character)``
    pairs it discloses."""

    level: Level
    marks: tuple[str | None, ...]
    known: tuple[tuple[int, str], ...] = ()

    @property
    def marked(self) -> bool:
        return any(m is not None for m in self.marks)

    def marked_chars(self) -> tuple[str | None, ...]:
        known = dict(self.known)
        return tuple(known.get(p) if m is not None else None for p, m in enumerate(self.marks))


@dataclass(frozen=True, slots=True)
class AttributeShown:
    """One attribute of a displayed pair."""

    name: str
    kind: AttributeType
    relation: str
    sides: tuple[SideShown, SideShown]
    swapped: bool = False
    rare: bool = False

    @property
    def marks(self):
        return (self.sides[0].marks, self.sides[1].marks)

    def seen(self) -> bool:
        """Whether every side with a marked character shows it (partial or full)."""
        return all(s.level is not Level.MASKED for s in self.sides if s.marked)

    def partial(self) -> bool:
        """Whether it is seen with a marked side at partial only (the marked characters and
        masks for the rest, which people read otherwise than a whole value)."""
        return self.seen() and any(s.level is Level.PARTIAL for s in self.sides if s.marked)

    def masked_class(self) -> str:
        return classify(self.kind, self.relation, self.marks, swapped=self.swapped, rare=self.rare)

    def shown_class(self) -> str:
        """The class once the marked characters are read (only when :meth:`seen`)."""
        chars = (self.sides[0].marked_chars(), self.sides[1].marked_chars())
        return classify(
            self.kind, self.relation, self.marks, chars, swapped=self.swapped, rare=self.rare
        )

    def depth_matters(self) -> bool:
        """Whether reading the characters can change what the reader makes of it."""
        return self.kind is not AttributeType.CATEGORY and self.masked_class() not in (
            IDENTICAL,
            "identical_rare",
            MISSING,
        )

    def step(self) -> tuple[int, ...]:
        """The rows to open one level for the next depth: the masked marked sides while any
        is masked, then the marked sides at partial (to full); none once all are full."""
        if not self.depth_matters():
            return ()
        for level in (Level.MASKED, Level.PARTIAL):
            rows = tuple(r for r, s in enumerate(self.sides) if s.marked and s.level is level)
            if rows:
                return rows
        return ()

    def step_ends_partial(self) -> bool:
        """Whether the attribute is read at partial once its :meth:`step` is opened."""
        after = []
        for r, side in enumerate(self.sides):
            if not side.marked:
                continue
            level = side.level
            if r in self.step():
                level = (
                    Level.PARTIAL
                    if level is Level.MASKED and _partial_offered(side)
                    else Level.FULL
                )
            after.append(level)
        return Level.PARTIAL in after


def _partial_offered(side: SideShown) -> bool:
    """Whether partial shows something new on a side (some, not all, of it marked): the rule
    of :func:`app.core.disclosure.partial_available`, read from the marks."""
    marked = sum(m is not None for m in side.marks)
    return 0 < marked < len(side.marks)


@dataclass(frozen=True, slots=True)
class Shown:
    """A displayed pair: its attributes in display order; ``markup`` is False only for the
    CHI 2018 study's baseline display (no difference marks, no frequency markers)."""

    attributes: tuple[AttributeShown, ...]
    markup: bool = True

    def attribute(self, name: str) -> AttributeShown:
        return next(a for a in self.attributes if a.name == name)

    def reading(self) -> Reading:
        """What a reader makes of the display, attribute by attribute."""
        return Reading(
            tuple(
                Read(
                    a.name,
                    a.kind,
                    a.masked_class(),
                    a.shown_class() if a.seen() else None,
                    a.partial(),
                )
                for a in self.attributes
            ),
            self.markup,
            any(side.known for a in self.attributes for side in a.sides),
        )


@dataclass(frozen=True, slots=True)
class Read:
    """One attribute as read: its masked class ``s`` and, once its characters are seen, its
    shown class ``z`` (``None`` while they are masked), ``partial`` when seen at partial only."""

    name: str
    kind: AttributeType
    s: str
    z: str | None = None
    partial: bool = False

    @property
    def depth(self) -> str:
        """``any`` when the class cannot change with the level, else ``masked``, ``partial``
        or ``shown`` (every marked side full)."""
        if self.kind is AttributeType.CATEGORY or self.s in (IDENTICAL, "identical_rare", MISSING):
            return "any"
        if self.z is None:
            return "masked"
        return "partial" if self.partial else "shown"

    @property
    def cls(self) -> str:
        return self.s if self.z is None else self.z


@dataclass(frozen=True, slots=True)
class Reading:
    """A displayed pair as read: one :class:`Read` per attribute, the markup flag and whether
    the display discloses any character at all."""

    reads: tuple[Read, ...]
    markup: bool = True
    disclosed: bool = False

    def with_shown(self, name: str, z: str, partial: bool = False) -> Reading:
        """The reading once the characters of ``name`` show class ``z`` (at partial only)."""
        reads = tuple(
            Read(r.name, r.kind, r.s, z, partial) if r.name == name else r for r in self.reads
        )
        return Reading(reads, self.markup, True)


def shown_pair(
    comparisons: Mapping[str, Comparison],
    levels: Mapping[tuple[int, str], Level],
    *,
    name_swap: frozenset[str] = frozenset(),
    rare: frozenset[str] = frozenset(),
    markup: bool = True,
) -> Shown:
    """Return what a pair displays: ``comparisons`` by attribute in display order, the stored
    ``levels`` by ``(row, attribute)`` (masked when absent), the name attributes the name-swap
    marker covers and the identical names whose frequency marker says unique or rare (a
    display without ``markup``, the study's baseline, shows no frequency marker)."""
    attributes = []
    for name, cmp in comparisons.items():
        sides = []
        for row in (0, 1):
            level = levels.get((row, name), Level.MASKED)
            known = disclosed_characters(cmp, row, level) if cmp.values[row] is not None else ()
            sides.append(SideShown(level, tuple(cmp.marks[row]), tuple(known)))
        attributes.append(
            AttributeShown(
                name,
                cmp.kind,
                cmp.relation,
                (sides[0], sides[1]),
                swapped=name in name_swap,
                rare=markup and name in rare and cmp.relation == IDENTICAL,
            )
        )
    return Shown(tuple(attributes), markup)


def levels_of(
    comparisons: Mapping[str, Comparison],
    *,
    name_swap: frozenset[str] = frozenset(),
    rare: frozenset[str] = frozenset(),
) -> dict[str, tuple[str, str]]:
    """Every attribute's world-model level ``(s, z)``: its class masked and with every cell
    full (the server reads all values to estimate the world model's tables)."""
    full = {(r, a): Level.FULL for a in comparisons for r in (0, 1)}
    masked = shown_pair(comparisons, {}, name_swap=name_swap, rare=rare)
    seen = shown_pair(comparisons, full, name_swap=name_swap, rare=rare)
    return {
        a.name: (a.masked_class(), b.shown_class())
        for a, b in zip(masked.attributes, seen.attributes, strict=True)
    }
