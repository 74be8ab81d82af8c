"""What a display lets a reader make of one attribute of a pair: its class.

One classifier reads one attribute of a displayed pair at two depths (docs/advice.md §1):

- *masked*: only what a masked display draws, i.e. the relation marker, the number of
  characters of each side and the difference mark of every position (the ``marks`` of
  :class:`app.core.disclosure.Comparison`);
- *shown*: also the differing characters themselves, which is what the partial level
  discloses (a full level adds only characters equal to the partner's, which no class reads).

The classes are the discrepancy kinds of the CHI 2018 study's scenarios: a typo of one or two
edits, a transposition, a day/month swap, a shared prefix (nickname, truncation), an initial, a
name suffix (``JR``, ``SR``, ``III``), first and last names swapped, a missing value, values
that differ entirely. Identical names carry the frequency marker's class (``identical_rare``
for a unique or rare name), which every display but the study's baseline shows.

Nothing here looks at a character a display does not show: :func:`classify` reads marks and,
at the shown depth, the marked characters only (unmarked characters equal the partner's).
"""

from __future__ import annotations

from collections.abc import Sequence

from app.core.disclosure import AttributeType

__all__ = [
    "CLASSES",
    "IDENTICAL",
    "MISSING",
    "SWAP",
    "classify",
    "edit_count",
]

IDENTICAL, MISSING, SWAP = "identical", "missing", "swap"
#: Every class by attribute type, in a fixed order (the models' tables follow it).
CLASSES: dict[AttributeType, tuple[str, ...]] = {
    AttributeType.STRING: (
        IDENTICAL, "identical_rare", MISSING, SWAP, "one_edit", "two_edits", "transposition",
        "initial", "suffix", "prefix", "different",
    ),
    AttributeType.ID: (IDENTICAL, MISSING, "one_edit", "two_edits", "transposition", "different"),
    AttributeType.DATE: (
        IDENTICAL, MISSING, "one_edit", "two_edits", "transposition", "date_swap", "year",
        "different",
    ),
    AttributeType.CATEGORY: (IDENTICAL, MISSING, "different"),
}  # fmt: skip

_SUFFIXES = frozenset({"JR", "SR", "II", "III", "IV", "V", "2ND", "3RD"})
_PREFIX = 3  # an unmarked start this long reads as a shared stem (ALEC / ALEXANDER)

Marks = tuple[tuple[str | None, ...], tuple[str | None, ...]]


def edit_count(marks: Marks) -> int:
    """Return the number of edit operations the marks of a pair draw.

    A substitution marks one position on each side, an indel one position on one side, a
    transposition two positions on each side.
    """
    left, right = marks
    subs = sum(m == "substitution" for m in left)
    indels = sum(m == "indel" for m in left) + sum(m == "indel" for m in right)
    swaps = sum(m == "transposition" for m in left) // 2
    dates = sum(m == "date_swap" for m in left)
    return subs + indels + swaps + dates


def classify(
    kind: AttributeType,
    relation: str,
    marks: Marks,
    chars: tuple[Sequence[str | None], Sequence[str | None]] | None = None,
    *,
    swapped: bool = False,
    rare: bool = False,
) -> str:
    """Return the class of one attribute of a displayed pair.

    ``relation`` is the pair's marker (identical, different, missing); ``marks`` the mark of
    every position of each side; ``chars``, at the shown depth only, the character of every
    *marked* position of each side (``None`` elsewhere); ``swapped`` the pair's name-swap
    marker (for a name attribute); ``rare`` whether the frequency marker calls an identical
    name unique or rare.
    """
    if relation == "missing":
        return MISSING
    if relation == "identical":
        return "identical_rare" if rare and kind is AttributeType.STRING else IDENTICAL
    if kind is AttributeType.CATEGORY:
        return "different"
    if swapped and kind is AttributeType.STRING:
        return SWAP
    if kind is AttributeType.DATE:
        return _date_class(marks)
    marked = [{p for p, m in enumerate(side) if m is not None} for side in marks]
    only_swaps = all(m == "transposition" for side in marks for m in side if m is not None)
    if only_swaps and sum(m is not None for m in marks[0]) == 2:
        return "transposition"
    if kind is AttributeType.STRING:
        found = _string_class(marks, marked, chars)
        if found is not None:
            return found
    edits = edit_count(marks)
    if edits <= 2:
        return "one_edit" if edits == 1 else "two_edits"
    if kind is AttributeType.STRING and _unmarked_start(marks) >= _PREFIX:
        return "prefix"
    return "different"


def _unmarked_start(marks: Marks) -> int:
    """Length of the start both sides share unmarked (equal aligned characters)."""
    shortest = min(len(side) for side in marks)
    start = 0
    while start < shortest and all(side[start] is None for side in marks):
        start += 1
    return start


def _string_class(marks: Marks, marked, chars) -> str | None:
    lengths = (len(marks[0]), len(marks[1]))
    first_equal = all(0 not in side for side in marked)
    if min(lengths) == 1 and first_equal:
        return "initial"  # "Q" / "QUEST": the masks show a one-character value
    if chars is None:
        return None
    texts = [_marked_text(side, c) for side, c in zip(marks, chars, strict=True)]
    if first_equal and any(c is not None and len(c) > 1 and c[1] == " " for c in chars):
        return "initial"  # "R GRAY" / "ROBERT": the second character, a space, is marked
    if _is_suffix(texts, marks):
        return "suffix"
    return None


def _marked_text(side: tuple[str | None, ...], chars: Sequence[str | None]) -> str:
    return "".join(c for m, c in zip(side, chars, strict=True) if m is not None and c)


def _is_suffix(texts: list[str], marks: Marks) -> bool:
    """Whether the marked characters are a name suffix at the end of one or both sides."""
    tails = []
    for side, text in zip(marks, texts, strict=True):
        if not text:
            continue
        first = next(p for p, m in enumerate(side) if m is not None)
        if any(m is None for m in side[first:]):
            return False  # the marked characters are not the value's tail
        tails.append(text)
    tokens = [t.strip() for t in tails]
    return bool(tokens) and all(t in _SUFFIXES for t in tokens)


def _date_class(marks: Marks) -> str:
    left = marks[0]
    if any(m == "date_swap" for m in left):
        return "date_swap"
    differing = [p for p, m in enumerate(left) if m is not None]
    if len(differing) == 2 and all(left[p] == "transposition" for p in differing):
        return "transposition"
    if len(differing) == 1:
        return "one_edit"
    if differing and all(p >= 4 for p in differing):
        return "year"  # month and day agree, the year differs in several digits
    return "two_edits" if len(differing) == 2 else "different"
