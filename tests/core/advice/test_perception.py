"""What a display lets a reader make of an attribute: the study's discrepancy kinds."""

from __future__ import annotations

import pytest

from app.core.advice import shown_pair
from app.core.disclosure import AttributeType, Level, compare, normalize

S, D, ID = AttributeType.STRING, AttributeType.DATE, AttributeType.ID
FULL = {(0, "x"): Level.FULL, (1, "x"): Level.FULL}


def _attribute(kind, a, b, levels=None):
    cmp = compare(kind, normalize(kind, a), normalize(kind, b))
    return shown_pair({"x": cmp}, levels or {}).attributes[0]


@pytest.mark.parametrize(
    ("kind", "a", "b", "masked", "shown"),
    [
        (S, "ALEC", "ALEXANDER", "prefix", "prefix"),
        (S, "KATHRYNE", "KATHY", "prefix", "prefix"),
        (S, "SIMMONS JR", "SIMMONS", "prefix", "suffix"),  # the suffix needs its characters
        (S, "R GRAY", "ROBERT", "different", "initial"),
        (S, "QUEST", "Q", "initial", "initial"),  # one character: the masks tell
        (S, "ERIN", "ERICA", "two_edits", "two_edits"),
        (S, "JAMGOTCH", "JAMGOTHC", "transposition", "transposition"),
        (S, "GLORIA", "GEORGE", "different", "different"),
        (S, "SMITH", "SMITH", "identical", "identical"),
        (S, None, "SMITH", "missing", "missing"),
        (D, "01/07/1931", "01/07/1913", "transposition", "transposition"),
        (D, "04/09/1963", "09/04/1963", "date_swap", "date_swap"),
        (D, "12/21/1966", "12/21/1986", "one_edit", "one_edit"),
        (D, "02/25/1958", "02/25/1973", "year", "year"),
        (D, "02/16/1952", "11/09/1987", "different", "different"),
        (ID, "1090353268", "1093053268", "transposition", "transposition"),
        (ID, "1000116216", "1700116216", "one_edit", "one_edit"),
        (ID, "1000604927", "7064167657", "different", "different"),
    ],
)
def test_class_at_each_depth(kind, a, b, masked, shown):
    attribute = _attribute(kind, a, b)
    assert attribute.masked_class() == masked
    seen = _attribute(kind, a, b, FULL)
    assert seen.seen() and seen.shown_class() == shown


def test_partial_shows_what_the_class_needs_and_full_adds_nothing():
    partial = {(0, "x"): Level.PARTIAL, (1, "x"): Level.MASKED}  # SIMMONS has nothing marked
    attribute = _attribute(S, "SIMMONS JR", "SIMMONS", partial)
    assert attribute.seen() and attribute.shown_class() == "suffix"
    assert attribute.sides[0].known == ((7, " "), (8, "J"), (9, "R"))


def test_a_masked_side_with_marks_is_not_seen_and_is_the_next_step():
    attribute = _attribute(S, "ALEC", "ALEXANDER", {(0, "x"): Level.PARTIAL})
    assert not attribute.seen() and attribute.step() == (1,)
    assert _attribute(S, "SMITH", "SMITH").step() == ()  # identical: nothing to read
    assert _attribute(AttributeType.CATEGORY, "M", "F").step() == ()


def test_swap_and_rare_markers():
    first = compare(S, "BOYLE", "JASON")
    last = compare(S, "JASON", "BOYLE")
    same = compare(S, "DOBBS", "DOBBS")
    shown = shown_pair(
        {"first": first, "last": last, "other": same},
        {},
        name_swap=frozenset({"first", "last"}),
        rare=frozenset({"other", "first"}),
    )
    classes = [a.masked_class() for a in shown.attributes]
    assert classes == ["swap", "swap", "identical_rare"]
