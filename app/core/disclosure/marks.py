"""Per-character difference marks of a pair of values (paper §3.2, Table 1).

A *mark* says why a character of one value is involved in an edit operation against the
other value; ``None`` means the character is aligned with an equal character. The
characters with a mark are exactly those a partial display discloses (spec §1).

- ``substitution``: aligned with a different character;
- ``indel``: no counterpart (inserted on this side, deleted on the other);
- ``transposition``: one of two adjacent characters swapped with the partner's;
- ``date_swap``: a differing month/day digit of a date whose month and day are swapped.

Two markers concern a pair rather than a character: :func:`name_swap` (first and last names
swapped across the pair) and :func:`frequency_class` (how common a name is).
"""

from __future__ import annotations

from typing import Literal

from app.core.disclosure.alignment import align

__all__ = [
    "Mark",
    "Marks",
    "aligned_marks",
    "positional_marks",
    "date_marks",
    "is_day_month_swap",
    "name_swap",
    "frequency_class",
]

Mark = Literal["substitution", "indel", "transposition", "date_swap"]
#: One mark (or ``None``) per character of each side.
Marks = tuple[tuple[Mark | None, ...], tuple[Mark | None, ...]]

_OP_MARK: dict[str, Mark] = {
    "substitute": "substitution",
    "delete": "indel",
    "insert": "indel",
    "transpose": "transposition",
}


def aligned_marks(a: str, b: str) -> Marks:
    """Mark the characters of ``a`` and ``b`` touched by their OSA alignment."""
    left: list[Mark | None] = [None] * len(a)
    right: list[Mark | None] = [None] * len(b)
    for op in align(a, b):
        mark = _OP_MARK.get(op.kind)
        if mark is None:
            continue
        for i in op.a_positions:
            left[i] = mark
        for j in op.b_positions:
            right[j] = mark
    return tuple(left), tuple(right)


def positional_marks(a: str, b: str) -> Marks:
    """Mark the positions where two equal-length values differ, character by character.

    Two adjacent differing positions whose characters are swapped (``53``/``35``) are a
    transposition; every other differing position is a substitution. Scanned left to right.
    """
    if len(a) != len(b):
        raise ValueError("positional comparison needs values of equal length")
    marks: list[Mark | None] = [None] * len(a)
    k = 0
    while k < len(a):
        if a[k] == b[k]:
            k += 1
        elif k + 1 < len(a) and a[k] == b[k + 1] and a[k + 1] == b[k]:
            marks[k] = marks[k + 1] = "transposition"
            k += 2
        else:
            marks[k] = "substitution"
            k += 1
    return tuple(marks), tuple(marks)


def is_day_month_swap(a: str, b: str) -> bool:
    """Return whether two ``MMDDYYYY`` dates have month and day swapped."""
    return a[0:2] == b[2:4] and a[2:4] == b[0:2] and a[0:2] != a[2:4]


def date_marks(a: str, b: str) -> Marks:
    """Mark the differing digits of two ``MMDDYYYY`` dates, digit by digit.

    The paper compares dates within and across the month, day and year elements (§3.2);
    a day/month swap marks the differing month and day digits ``date_swap`` (Table 3:
    ``*@/*&/****``), and partial mode shows only those digits (Table 4: ``*8/*9/****``).
    """
    left, right = positional_marks(a, b)
    if is_day_month_swap(a, b):
        swapped: list[Mark | None] = list(left)
        for k in range(4):
            if a[k] != b[k]:
                swapped[k] = "date_swap"
        return tuple(swapped), tuple(swapped)
    return left, right


def name_swap(
    first_a: str | None, last_a: str | None, first_b: str | None, last_b: str | None
) -> bool:
    """Return whether first and last names are swapped across the pair (case-insensitive).

    ``BENJAMIN MICHAEL`` / ``MICHAEL BENJAMIN`` is a swap; a missing name, or a first name
    equal to the last name, is not.
    """
    names = (first_a, last_a, first_b, last_b)
    if any(n is None for n in names):
        return False
    fa, la, fb, lb = (n.casefold() for n in names if n is not None)
    return fa == lb and la == fb and fa != la


def frequency_class(count: int | None) -> str:
    """Return the frequency class of a name count shown in MINDFIRL's FFreq/LFreq columns.

    ``unique`` (1), ``rare`` (2-5), ``common`` (6-100), ``very_common`` (>100) and
    ``unknown`` for ``None`` or a count below 1.
    """
    if count is None or count < 1:
        return "unknown"
    if count == 1:
        return "unique"
    if count <= 5:
        return "rare"
    return "common" if count <= 100 else "very_common"
