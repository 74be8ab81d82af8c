"""Tests of the disclosure engine: rules per attribute type (paper §3.2, spec §1)."""

from __future__ import annotations

import datetime as dt

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from app.core.disclosure import (
    SYMBOLS,
    AttributeType,
    CellView,
    Level,
    add_marker,
    align,
    compare,
    frequency_class,
    name_swap,
    next_level,
    partial_available,
    view,
)
from app.core.disclosure import shown as shown_known

M, P, F = Level.MASKED, Level.PARTIAL, Level.FULL


def text(cell: CellView) -> str:
    """Return the cell as plain text without cell-level markers."""
    return "".join(s.text for s in cell.segments if s.kind != "marker")


def markers(cell: CellView) -> list[str | None]:
    return [s.mark for s in cell.segments if s.kind == "marker"]


def chain(kind: str, a: str | None, b: str | None, side: int) -> list[Level]:
    cmp = compare(kind, a, b)
    levels, level = [M], next_level(cmp, side, M)
    while level is not None:
        levels.append(level)
        level = next_level(cmp, side, level)
    return levels


def test_string_substitution_table_4() -> None:
    cmp = compare("string", "Mary", "Mark")
    assert cmp.relation == "different"
    assert cmp.markups == {"different", "substitution"}
    assert cmp.edit_positions == (frozenset({3}), frozenset({3}))
    assert [text(view(cmp, 0, lv)) for lv in (M, P, F)] == ["***@", "***y", "Mary"]
    assert [text(view(cmp, 1, lv)) for lv in (M, P, F)] == ["***@", "***k", "Mark"]
    assert view(cmp, 0, P).known == ((3, "y"),)
    assert view(cmp, 1, F).segments[3].mark == "substitution"


def test_suffix_extension_is_an_insertion() -> None:
    cmp = compare("string", "SANCHEZ JR", "SANCHEZ")
    assert cmp.markups == {"different", "indel"}
    assert text(view(cmp, 0, M)) == "*******+++"
    assert text(view(cmp, 0, P)) == "******* JR"
    assert view(cmp, 0, P).disclosed == 3
    assert text(view(cmp, 1, M)) == "*******"
    assert chain("string", "SANCHEZ JR", "SANCHEZ", 0) == [M, P, F]
    assert chain("string", "SANCHEZ JR", "SANCHEZ", 1) == [M, F]


def test_transposition_marker() -> None:
    cmp = compare("string", "GARCIA", "GRACIA")
    assert "transposition" in cmp.markups
    assert text(view(cmp, 0, M)) == "*~~***"
    assert text(view(cmp, 1, P)) == "*RA***"


def test_entirely_different_strings_skip_partial() -> None:
    cmp = compare("string", "AB", "XY")
    assert not partial_available(cmp, 0)
    assert chain("string", "AB", "XY", 0) == [M, F]


@pytest.mark.parametrize("kind", ["string", "id", "date", "category"])
def test_identical_values(kind: str) -> None:
    value = "01021990" if kind == "date" else "ABC"
    cmp = compare(kind, value, value)
    assert cmp.relation == "identical" and cmp.markups == {"identical"}
    assert chain(kind, value, value, 0) == [M, F]
    assert markers(view(cmp, 0, M)) == ["identical"]
    assert view(cmp, 0, P).known == ()


def test_id_equal_length_is_positional() -> None:
    cmp = compare("id", "1530042971", "1350082931")
    # The original MINDFIRL helper of this pair: *53**4**7* / *35**8**3* (ppirl.csv).
    assert text(view(cmp, 0, P)) == "*53**4**7*"
    assert text(view(cmp, 1, P)) == "*35**8**3*"
    assert text(view(cmp, 0, M)) == "*~~**@**@*"


def test_id_different_length_is_aligned() -> None:
    cmp = compare("id", "123456", "1234567")
    assert text(view(cmp, 1, P)) == "******7"
    assert chain("id", "123456", "1234567", 0) == [M, F]


def test_date_swap_table_4() -> None:
    cmp = compare("date", "08091964", "09081964")
    assert cmp.markups == {"different", "date_swap"}
    assert text(view(cmp, 0, M)) == "*&/*&/****"
    assert text(view(cmp, 0, P)) == "*8/*9/****"
    assert text(view(cmp, 1, P)) == "*9/*8/****"
    assert text(view(cmp, 1, F)) == "09/08/1964"
    cell = view(cmp, 0, P)
    assert (cell.disclosed, cell.total, cell.known) == (2, 8, ((1, "8"), (3, "9")))
    assert [s.kind for s in cell.segments].count("separator") == 2


def test_date_digit_transposition_and_substitution() -> None:
    cmp = compare("date", "01021964", "01021946")
    assert cmp.markups == {"different", "transposition"}
    assert text(view(cmp, 0, M)) == "**/**/**~~"
    cmp = compare("date", "10311945", "10311944")
    assert text(view(cmp, 0, P)) == "**/**/***5"


def test_date_must_be_normalised() -> None:
    with pytest.raises(ValueError):
        compare("date", "08/09/1964", "08091964")


def test_category() -> None:
    cmp = compare("category", "White", "Asian")
    assert cmp.markups == {"different"}
    assert chain("category", "White", "Asian", 0) == [M, F]
    masked = view(cmp, 0, M)
    assert (masked.disclosed, masked.total, masked.known) == (0, 1, ())
    assert markers(masked) == ["different"]
    full = view(cmp, 0, F)
    assert (full.disclosed, full.total, full.known) == (1, 1, ((0, "White"),))


@pytest.mark.parametrize("kind", list(AttributeType))
def test_missing(kind: AttributeType) -> None:
    value = "01021990" if kind is AttributeType.DATE else "ABC"
    cmp = compare(kind, None, value)
    assert cmp.relation == "missing" and cmp.missing == (True, False)
    assert cmp.markups == {"missing"}
    cell = view(cmp, 0, F)
    assert (cell.disclosed, cell.total, cell.known) == (0, 0, ())
    assert markers(cell) == ["missing"]
    assert next_level(cmp, 0, M) is None
    assert chain(kind, None, value, 1) == [M, F]
    both = compare(kind, None, None)
    assert both.missing == (True, True)
    assert next_level(both, 0, M) is None and next_level(both, 1, M) is None


def test_level_progression_from_stored_level() -> None:
    cmp = compare("string", "Mary", "Mark")
    assert next_level(cmp, 0, "masked") is P
    assert next_level(cmp, 0, "partial") is F
    assert next_level(cmp, 0, "full") is None


def test_view_rejects_bad_side() -> None:
    with pytest.raises(ValueError):
        view(compare("string", "a", "b"), 2, M)


@pytest.mark.parametrize(
    ("names", "expected"),
    [
        (("BENJAMIN", "MICHAEL", "MICHAEL", "BENJAMIN"), True),
        (("Scott", "Noble", "NOBLE", "SCOTT"), True),
        (("ANN", "ANN", "ANN", "ANN"), False),
        (("BENJAMIN", "MICHAEL", "BENJAMIN", "MICHAEL"), False),
        (("BENJAMIN", None, None, "BENJAMIN"), False),
    ],
)
def test_name_swap(names: tuple[str | None, ...], expected: bool) -> None:
    assert name_swap(*names) is expected


def test_add_marker_discloses_nothing() -> None:
    cell = view(compare("string", "BENJAMIN", "MICHAEL"), 0, M)
    marked = add_marker(cell, "name_swap")
    assert markers(marked) == ["name_swap"]
    assert marked.segments[-1].text == SYMBOLS["name_swap"]
    assert (marked.known, marked.disclosed, marked.total) == (cell.known, 0, 8)


FREQUENCIES = {None: "unknown", 0: "unknown", -3: "unknown", 1: "unique", 2: "rare", 5: "rare"}
FREQUENCIES |= {6: "common", 100: "common", 101: "very_common", 10**30: "very_common"}


@pytest.mark.parametrize(("count", "expected"), FREQUENCIES.items())
def test_frequency_class(count: int | None, expected: str) -> None:
    assert frequency_class(count) == expected


# --- Property: the segments disclose exactly what the level discloses -----------------

_SYMBOL_TEXTS = frozenset(SYMBOLS.values()) | {"/"}


@st.composite
def _value(draw: st.DrawFn, kind: AttributeType) -> str:
    if kind is AttributeType.DATE:
        day = draw(st.dates(min_value=dt.date(1900, 1, 1), max_value=dt.date(2030, 12, 31)))
        return day.strftime("%m%d%Y")
    if kind is AttributeType.CATEGORY:
        return draw(st.sampled_from(["White", "Black", "Asian", "*", "@"]))
    alphabet = "0123456789" if kind is AttributeType.ID else "ABé *@~+&/"
    return draw(st.text(alphabet=alphabet, min_size=1, max_size=10))


def _mutate(kind: AttributeType, value: str, edits: list[tuple[int, int, str]]) -> str:
    chars = list(value)
    for op, where, char in edits:
        k = where % (len(chars) + 1)
        if op == 0 and k < len(chars):
            chars[k] = char
        elif op == 1 and k + 1 < len(chars):
            chars[k], chars[k + 1] = chars[k + 1], chars[k]
        elif op == 2 and kind is not AttributeType.DATE:
            chars.insert(k, char)
        elif op == 3 and k < len(chars) and kind is not AttributeType.DATE and len(chars) > 1:
            del chars[k]
    mutated = "".join(chars)
    if kind is AttributeType.DATE and (not mutated.isdigit() or len(mutated) != 8):
        return value
    return mutated


@st.composite
def pairs(draw: st.DrawFn) -> tuple[AttributeType, str | None, str | None]:
    kind = draw(st.sampled_from(list(AttributeType)))
    a = draw(_value(kind))
    if draw(st.booleans()):
        digits = "0123456789" if kind in (AttributeType.ID, AttributeType.DATE) else "ABé @"
        edits = st.tuples(st.integers(0, 3), st.integers(0, 20), st.sampled_from(digits))
        b = _mutate(kind, a, draw(st.lists(edits, max_size=3)))
    else:
        b = draw(_value(kind))
    if kind is AttributeType.DATE and draw(st.booleans()):
        b = a[2:4] + a[0:2] + a[4:]  # a day/month swap (not always a real date: fine here)
    a, b = draw(st.sampled_from([(a, b), (b, a), (None, b), (a, None), (None, None), (a, b)]))
    return kind, a, b


def _expected_edit_positions(kind: AttributeType, a: str, b: str) -> tuple[set[int], set[int]]:
    """Return the edit positions by an oracle independent of the marks module."""
    if kind is AttributeType.CATEGORY or a == b:
        return set(), set()
    if kind is AttributeType.DATE or (kind is AttributeType.ID and len(a) == len(b)):
        diff = {k for k in range(len(a)) if a[k] != b[k]}
        return diff, set(diff)
    ops = [op for op in align(a, b) if op.kind != "match"]
    return {p for op in ops for p in op.a_positions}, {p for op in ops for p in op.b_positions}


@settings(max_examples=3000, deadline=None)
@given(pairs())
def test_segments_disclose_exactly_the_level(pair: tuple[AttributeType, str | None, str | None]):
    kind, a, b = pair
    cmp = compare(kind, a, b)
    for side, value in enumerate((a, b)):
        other = (a, b)[1 - side]
        total = 0 if value is None else (1 if kind is AttributeType.CATEGORY else len(value))
        if value is None or other is None:
            edits: set[int] = set()
        else:
            edits = _expected_edit_positions(kind, a, b)[side]  # type: ignore[arg-type]
        assert cmp.edit_positions[side] == edits
        previous: set[tuple[int, str]] = set()
        for level in Level:
            cell = view(cmp, side, level)
            shown = [s for s in cell.segments if s.kind == "shown"]
            # every non-shown segment is a fixed symbol, never taken from the value
            assert all(s.text in _SYMBOL_TEXTS for s in cell.segments if s.kind != "shown")
            assert cell.known == tuple((s.pos, s.text) for s in shown)
            assert shown_known(cmp, side, level) == cell.known  # the previews' fast path
            assert (cell.level, cell.disclosed, cell.total) == (level, len(cell.known), total)
            positions = {p for p, _ in cell.known}
            expected = {M: set(), P: edits, F: set(range(total))}[level]
            assert positions == expected
            if value is not None and kind is not AttributeType.CATEGORY:
                assert all(value[p] == c for p, c in cell.known)
                # characters (shown or hidden) appear once each, in order
                assert [s.pos for s in cell.segments if s.kind in ("shown", "hidden")] == list(
                    range(total)
                )
            elif value is not None:
                assert cell.known == (((0, value),) if level is F else ())
            assert previous <= set(cell.known)  # disclosure is monotone in the level
            previous = set(cell.known)
        # stepping from masked reaches full (unless missing), partial only when it adds
        steps, level = [], next_level(cmp, side, M)
        while level is not None:
            steps.append(level)
            level = next_level(cmp, side, level)
        if value is None:
            assert steps == []
        else:
            assert steps == ([P, F] if 0 < len(edits) < total else [F])
