"""One unit for privacy risk: percent of the maximum KAPR, read and typed (app/units.py)."""

from fractions import Fraction

import pytest
from hypothesis import given
from hypothesis import strategies as st

from app.units import exact_fraction, exact_text, parse_percent, percent, percent_number


@pytest.mark.parametrize(
    ("typed", "fraction"),
    [("0.5", 0.005), ("0.5%", 0.005), (" 12,5 % ", 0.125), ("100", 1.0), ("0", 0.0),
     ("30", 0.3), ("7", 0.07), ("0.1", 0.001), ("1e1", 0.1)],
)  # fmt: skip
def test_parse_percent_divides_exactly(typed, fraction):
    assert parse_percent(typed) == fraction
    assert Fraction(repr(parse_percent(typed))) == Fraction(repr(fraction))


@pytest.mark.parametrize("typed", ["", "abc", "-1", "100.01", "nan", "inf", "1/2"])
def test_parse_percent_refuses_what_is_not_a_percentage(typed):
    with pytest.raises(ValueError, match="the budget is a percentage from 0 to 100"):
        parse_percent(typed)


@pytest.mark.parametrize(
    ("value", "shown"),
    [(0.3, "30"), (0.005, "0.5"), (0.1, "10"), (1.0, "100"), (0.0, "0"), (Fraction(1, 3), None)],
)
def test_percent_number_is_the_exact_decimal_an_input_holds(value, shown):
    text = percent_number(value)
    if shown is not None:
        assert text == shown
    else:
        assert text.startswith("33.333333")


def test_exact_text_and_percent_agree_on_every_kind_of_value():
    for value in (Fraction(23, 4620), "23/4620"):
        assert percent(value) == "0.498%"
        assert exact_text(value) == "exactly 23/4620 of the maximum KAPR (0.004978354978)"
    assert exact_fraction(0.005) == Fraction(1, 200)  # a budget: the decimal it was given


@given(st.decimals(min_value=0, max_value=100, places=4))
def test_a_typed_percentage_round_trips_through_an_input(typed):
    budget = parse_percent(str(typed))
    assert 0 <= budget <= 1
    assert parse_percent(percent_number(budget)) == budget
