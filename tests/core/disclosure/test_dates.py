"""Date layouts per column (app.core.disclosure.dates): strict, calendar-checked, value-free."""

from __future__ import annotations

import datetime as dt

import pytest
from hypothesis import given
from hypothesis import strategies as st

from app.core.disclosure import (
    COMMON_FORMATS,
    date_format,
    format_label,
    guess_format,
    normalize,
    normalize_date,
)


@given(day=st.dates(min_value=dt.date(1000, 1, 1)), pattern=st.sampled_from(sorted(COMMON_FORMATS)))
def test_every_offered_layout_reads_back_what_strftime_writes(day, pattern):
    assert normalize_date(day.strftime(pattern), pattern) == day.strftime("%m%d%Y")


@given(day=st.dates(min_value=dt.date(1000, 1, 1)))
def test_a_layout_agrees_with_the_default_reading(day):
    for pattern in ("%m/%d/%Y", "%Y-%m-%d"):
        text = day.strftime(pattern)
        assert normalize_date(text, pattern) == normalize("date", text)


@pytest.mark.parametrize(
    ("pattern", "text", "expected"),
    [
        ("%Y%m%d", "19460704", "07041946"),  # FEBRL
        ("%d/%m/%Y", "4/7/1946", "07041946"),  # one digit beside a separator
        ("%d.%m.%Y", "04.07.1946", "07041946"),
        ("%Y%m%d", " 19460704 ", "07041946"),
        ("%Y%m%d", "", None),
        ("%Y%m%d", "NA", None),
    ],
)
def test_reading(pattern, text, expected):
    assert normalize_date(text, pattern) == expected


@pytest.mark.parametrize(
    ("pattern", "text", "message"),
    [
        ("%Y%m%d", "1946074", "not a date in YYYYMMDD"),  # a glued field has its full width
        ("%Y%m%d", "19461304", "not a calendar date (month must be in 1..12)"),
        ("%Y%m%d", "19460231", "not a calendar date (day is out of range for month)"),
        ("%d/%m/%Y", "04/07/1946 10:00", "not a date in DD/MM/YYYY"),
        ("%d/%m/%Y", "1946-07-04", "not a date in DD/MM/YYYY"),
        ("%m/%d/%Y", "13/04/1946", "not a calendar date"),
    ],
)
def test_refusals_never_quote_the_value(pattern, text, message):
    with pytest.raises(ValueError) as caught:
        normalize_date(text, pattern)
    assert message in str(caught.value)
    assert text.strip() not in str(caught.value)


@pytest.mark.parametrize(
    "pattern", ["", "%Y%m", "%Y%m%d%d", "%H:%M:%S", "%y-%m-%d", "%Y1%m%d", "x" * 50, 7]
)
def test_bad_layouts_are_refused(pattern):
    with pytest.raises(ValueError, match="date format"):
        date_format(pattern)


def test_labels():
    assert format_label("%Y%m%d") == "YYYYMMDD"
    assert format_label(None) == "MM/DD/YYYY or YYYY-MM-DD"
    assert all(format_label(p) == label for p, label in COMMON_FORMATS.items())


def test_the_guess_follows_the_most_values_not_a_few_swapped_days():
    us = [f"{m:02d}/{d:02d}/1990" for m in range(1, 13) for d in range(1, 29)]
    swapped = ["13/04/1990", "25/12/1990"]  # day first, as a typo or a swap
    assert guess_format(us + swapped) == ""  # the default layouts read the most
    european = [f"{d:02d}/{m:02d}/1990" for m in range(1, 13) for d in range(1, 29)]
    assert guess_format(european) == "%d/%m/%Y"
    assert guess_format(["19460704", "20011231", "", "19461304"]) == "%Y%m%d"
    assert guess_format(["LYNN", "JEAN"]) == ""
