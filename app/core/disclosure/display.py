"""Masked, partial and full displays of a pair of values, as structured segments.

Implements the display modes and markups of MINDFIRL (paper §3.2, Table 1) with the
conventions of spec/README.md §1:

- *masked*: one mask symbol per character, with a difference marker at each character
  involved in an edit operation (Table 3: ``***@`` / ``***&``); discloses nothing;
- *partial*: exactly the characters involved in edit operations of the pair's alignment
  are shown (Table 4: ``Mary``/``Mark`` → ``***y``/``***k``; ``08/09/1964`` vs
  ``09/08/1964`` → ``*8/*9/****``); categories and missing values have no partial level;
- *full*: every character, differing ones marked.

:func:`compare` computes the :class:`Comparison` of a pair once; :func:`view` renders one
side at one level as :class:`Segment` s (never HTML) together with exactly the
``(position, character)`` pairs that display discloses, which the anonymity-set index
uses as the evidence of the cell (paper Definition 4.4).
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Literal

from app.core.disclosure.attributes import AttributeType, Level, value_characters
from app.core.disclosure.marks import Mark, Marks, aligned_marks, date_marks, positional_marks

__all__ = [
    "MASK",
    "SYMBOLS",
    "Relation",
    "SegmentKind",
    "Segment",
    "CellView",
    "Comparison",
    "compare",
    "view",
    "shown",
    "partial_available",
    "next_level",
    "add_marker",
]

Relation = Literal["identical", "different", "missing"]
#: ``hidden``: a character not disclosed (``text`` is a symbol); ``shown``: a disclosed
#: character (``text`` is the character, or the whole value of a category); ``separator``:
#: a date's ``/`` (not a character); ``marker``: a cell-level markup symbol.
SegmentKind = Literal["hidden", "shown", "separator", "marker"]
CellMarker = Literal["identical", "different", "missing", "name_swap"]

MASK = "*"
#: Display symbol of each mark; a symbol is never taken from the value.
SYMBOLS: dict[str | None, str] = {
    None: MASK,
    "substitution": "@",
    "indel": "+",
    "transposition": "~",
    "date_swap": "&",
    "identical": "=",
    "different": "\u2260",
    "missing": "\u2205",
    "name_swap": "\u21c4",
}


@dataclass(frozen=True, slots=True)
class Segment:
    """One piece of a cell's display.

    ``pos`` is the character position in the normalised value (``None`` for separators
    and markers); ``mark`` is the difference mark of that character or the markup of a
    marker. Only a ``shown`` segment carries a character of the value.
    """

    kind: SegmentKind
    text: str
    pos: int | None = None
    mark: str | None = None


@dataclass(frozen=True, slots=True)
class CellView:
    """One side of a pair at one level: its segments and what they disclose.

    ``known`` is exactly the ``(position, character)`` pairs of the ``shown`` segments,
    ``disclosed == len(known)`` and ``total`` is the number of characters of the value
    (8 for a date, 1 for a category, 0 when missing), so ``p_ij = disclosed / total``.
    """

    level: Level
    segments: tuple[Segment, ...]
    disclosed: int
    total: int
    known: tuple[tuple[int, str], ...]


@dataclass(frozen=True, slots=True)
class Comparison:
    """The comparison of a pair of normalised values of one attribute (paper §3.2).

    ``marks[side][pos]`` is the difference mark of each character (``None`` when it is
    aligned with an equal character); ``edit_positions[side]`` the positions with a mark,
    i.e. the characters a partial display of that side discloses.
    """

    kind: AttributeType
    values: tuple[str | None, str | None]
    relation: Relation
    missing: tuple[bool, bool]
    markups: frozenset[str]
    marks: Marks
    edit_positions: tuple[frozenset[int], frozenset[int]]

    def total(self, side: int) -> int:
        """Return the number of characters of one side (date 8, category 1, missing 0)."""
        return value_characters(self.values[side], self.kind)


def _pair_marks(kind: AttributeType, a: str, b: str) -> Marks:
    if kind is AttributeType.CATEGORY:
        return (None,), (None,)
    if kind is AttributeType.DATE:
        return date_marks(a, b)
    if kind is AttributeType.ID and len(a) == len(b):
        return positional_marks(a, b)
    return aligned_marks(a, b)


def compare(kind: AttributeType | str, a: str | None, b: str | None) -> Comparison:
    """Compare two normalised values of an attribute of type ``kind``.

    Strings are aligned by optimal-string-alignment Damerau-Levenshtein; ids position by
    position when their lengths are equal, otherwise aligned; dates digit by digit on
    ``MMDDYYYY``; categories as a whole.
    """
    kind = AttributeType(kind)
    if kind is AttributeType.DATE:
        for value in (a, b):
            if value is not None and not (len(value) == 8 and value.isascii() and value.isdigit()):
                raise ValueError(f"a date must be normalised to MMDDYYYY: {value!r}")
    missing = (a is None, b is None)
    if a is None or b is None:
        marks: Marks = (
            () if a is None else (None,) * _length(kind, a),
            () if b is None else (None,) * _length(kind, b),
        )
        return Comparison(
            kind, (a, b), "missing", missing, frozenset({"missing"}), marks, _positions(marks)
        )
    relation: Relation = "identical" if a == b else "different"
    marks = _pair_marks(kind, a, b)
    found = {m for side in marks for m in side if m is not None}
    return Comparison(
        kind,
        (a, b),
        relation,
        missing,
        frozenset({relation} | found),
        marks,
        _positions(marks),
    )


def _length(kind: AttributeType, value: str) -> int:
    return 1 if kind is AttributeType.CATEGORY else len(value)


def _positions(marks: Marks) -> tuple[frozenset[int], frozenset[int]]:
    left, right = (frozenset(p for p, m in enumerate(side) if m is not None) for side in marks)
    return left, right


def _marker(mark: CellMarker) -> Segment:
    return Segment("marker", SYMBOLS[mark], None, mark)


def _cell_markers(cmp: Comparison, side: int) -> tuple[Segment, ...]:
    if cmp.values[side] is None:
        return (_marker("missing"),)
    if cmp.relation == "identical":
        return (_marker("identical"),)
    if cmp.kind is AttributeType.CATEGORY and cmp.relation == "different":
        return (_marker("different"),)
    return ()


def _char_segment(char: str, pos: int, mark: Mark | None, show: bool) -> Segment:
    if show:
        return Segment("shown", char, pos, mark)
    return Segment("hidden", SYMBOLS[mark], pos, mark)


def _value_segments(cmp: Comparison, side: int, level: Level) -> list[Segment]:
    value = cmp.values[side]
    if value is None:
        return []
    if cmp.kind is AttributeType.CATEGORY:
        return [_char_segment(value, 0, None, level is Level.FULL)]
    segments: list[Segment] = []
    for pos, (char, mark) in enumerate(zip(value, cmp.marks[side], strict=True)):
        if cmp.kind is AttributeType.DATE and pos in (2, 4):
            segments.append(Segment("separator", "/"))
        show = level is Level.FULL or (level is Level.PARTIAL and mark is not None)
        segments.append(_char_segment(char, pos, mark, show))
    return segments


def view(cmp: Comparison, side: int, level: Level | str) -> CellView:
    """Render one side (0 or 1) of a comparison at ``level``.

    A level a side does not offer still renders consistently: partial of a category or
    of identical values discloses nothing; partial of entirely different values discloses
    every character (use :func:`next_level` to step through the offered levels).
    """
    if side not in (0, 1):
        raise ValueError(f"side must be 0 or 1, not {side!r}")
    level = Level(level)
    segments = (*_value_segments(cmp, side, level), *_cell_markers(cmp, side))
    known = tuple((s.pos, s.text) for s in segments if s.kind == "shown" and s.pos is not None)
    return CellView(level, segments, len(known), cmp.total(side), known)


def shown(cmp: Comparison, side: int, level: Level | str) -> tuple[tuple[int, str], ...]:
    """Return the ``known`` of :func:`view` without rendering its segments.

    The KAPR evidence of a cell needs only the disclosed ``(position, character)`` pairs;
    the hover previews ask for them for every cell of a page, so they skip the rendering.
    """
    value = cmp.values[side]
    level = level if isinstance(level, Level) else Level(level)
    if value is None or level is Level.MASKED:
        return ()
    if cmp.kind is AttributeType.CATEGORY:
        return ((0, value),) if level is Level.FULL else ()
    if level is Level.FULL:
        return tuple(enumerate(value))
    return tuple((p, value[p]) for p in sorted(cmp.edit_positions[side]))


def add_marker(cell: CellView, mark: CellMarker) -> CellView:
    """Return ``cell`` with a cell-level marker appended (discloses no character).

    The caller adds ``name_swap`` to both name cells of both rows of a pair shown in
    masked mode when :func:`name_swap` holds.
    """
    return dataclasses.replace(cell, segments=(*cell.segments, _marker(mark)))


def partial_available(cmp: Comparison, side: int) -> bool:
    """Return whether partial would disclose something new on ``side``.

    False for a missing value or partner, a category, identical values, a side with no
    character involved in an edit operation (the shorter side of ``SANCHEZ`` /
    ``SANCHEZ JR``) and a side whose every character is involved (partial equals full).
    """
    if cmp.relation != "different" or cmp.kind is AttributeType.CATEGORY:
        return False
    return 0 < len(cmp.edit_positions[side]) < cmp.total(side)


def next_level(cmp: Comparison, side: int, level: Level | str) -> Level | None:
    """Return the level after the stored ``level`` of one side, or ``None`` at the end.

    masked → partial → full, skipping partial when :func:`partial_available` is false;
    ``None`` for a missing value (nothing to reveal) and after full.
    """
    level = Level(level)
    if cmp.values[side] is None or level is Level.FULL:
        return None
    if level is Level.MASKED and partial_available(cmp, side):
        return Level.PARTIAL
    return Level.FULL
