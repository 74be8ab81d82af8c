"""How an uploaded model reads each date attribute: the form Splink is given it in."""

from __future__ import annotations

import datetime as dt

import pyarrow as pa
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from app.projects.scoring import ModelError, check_model
from app.projects.scoring.model.forms import DATE, ISO, date_column, read_forms, write_dates

ATTRIBUTES = {"name": "string", "dob": "date", "postcode": "id"}


def _model(*conditions: str) -> dict:
    levels = [{"sql_condition": c, "m_probability": 0.5, "u_probability": 0.1} for c in conditions]
    return {
        "link_type": "link_only",
        "blocking_rules_to_generate_predictions": ['block_on("name")'],
        "comparisons": [
            {"output_column_name": f"c{i}", "comparison_levels": [level, {"sql_condition": "ELSE"}]}
            for i, level in enumerate(levels)
        ],
    }


def _forms(*conditions: str):
    checked = check_model(_model(*conditions), ATTRIBUTES, "link")
    return read_forms(checked.comparisons, ATTRIBUTES)


STRP = "try_strptime(dob_l, '{0}') IS NULL OR try_strptime(dob_r, '{0}') IS NULL"


@pytest.mark.parametrize(
    ("conditions", "form"),
    [
        # Splink's DateOfBirthComparison(input_is_string=True, datetime_format="%Y%m%d"): the
        # raw text is compared too (levenshtein), in the layout the model parses
        ((STRP.format("%Y%m%d"), "levenshtein(dob_l, dob_r) <= 1"), "%Y%m%d"),
        ((STRP.format("%d/%m/%Y"),), "%d/%m/%Y"),
        # input_is_string=False: EPOCH of the column itself, text only through a CAST
        (("ABS(EPOCH(dob_l) - EPOCH(dob_r)) <= 2629800.0",
          "levenshtein(CAST(dob_l AS TEXT), CAST(dob_r AS TEXT)) <= 1", "dob_l = dob_r"), DATE),
        (("CAST(dob_l AS DATE) = CAST(dob_r AS DATE)",), ISO),
        # equality and NULL tests read no layout: nothing to say
        (("dob_l = dob_r", "dob_l IS NULL OR dob_r IS NULL"), None),
    ],
)  # fmt: skip
def test_the_form_a_model_reads(conditions, form):
    forms = _forms(*conditions)
    assert forms.dates.get("dob") == form
    assert not forms.problems


def test_text_compared_with_no_layout_named_is_given_as_iso_and_noted():
    forms = _forms("levenshtein(dob_l, dob_r) <= 1")
    assert "dob" not in forms.dates  # the working table's default: YYYY-MM-DD
    assert forms.notes and "no date layout named" in forms.notes[0]
    assert forms.notes[0].startswith("comparisons[0].comparison_levels[0]: dob")


@pytest.mark.parametrize(
    ("conditions", "message"),
    [
        ((STRP.format("%Y%m%d"), STRP.format("%Y-%m-%d")), "two date layouts (YYYYMMDD and"),
        (("EPOCH(dob_l) = EPOCH(dob_r)", "levenshtein(dob_l, dob_r) <= 1"), "a DATE column"),
        (("EPOCH(dob_l) > 0", STRP.format("%Y%m%d")), "and as text"),
        ((STRP.format("%Y%m%d"), "CAST(dob_l AS DATE) = CAST(dob_r AS DATE)"), "cast to a date"),
        ((STRP.format("%d %b %Y"),), "codes other than %Y %y %m %d"),
        ((STRP.format("text"),), "codes other than %Y %y %m %d"),  # a layout, not a keyword
        ((STRP.format("%Y%m%d"), STRP.format("a secret")), "(YYYYMMDD and another layout)"),
        (("EPOCH(name_l) = EPOCH(name_r)",), "name is a string attribute here"),
    ],
)
def test_a_model_that_cannot_be_given_one_form_is_refused_saying_where(conditions, message):
    with pytest.raises(ModelError) as caught:
        check_model(_model(*conditions), ATTRIBUTES, "link")
    problems = " ".join(caught.value.problems)
    assert message in problems and "comparisons[" in problems


def test_a_column_splink_is_not_given_is_refused_with_the_reason():
    with pytest.raises(ModelError) as caught:
        check_model(_model("ssn_l = ssn_r", "dob_year_l = dob_year_r"), ATTRIBUTES, "link", ["ssn"])
    sensitive, derived = caught.value.problems
    assert "unknown attribute 'ssn'" in sensitive and "Splink is never given it" in sensitive
    assert "'dob_year'" in derived and "derived before training" in derived


@settings(max_examples=200, deadline=None)
@given(st.dates(dt.date(1000, 1, 1), dt.date(9999, 12, 31)))
def test_dates_are_written_as_strftime_writes_them(day):
    stored = day.strftime("%m%d%Y")
    for layout in ("%Y%m%d", "%d/%m/%Y", "%Y-%m-%d", "%y.%m.%d"):
        assert write_dates([stored], layout) == [day.strftime(layout)]
    assert write_dates([stored, None], DATE) == [day, None]


STORED = st.one_of(
    st.none(),
    st.dates(dt.date(1, 1, 1), dt.date(9999, 12, 31)).map(lambda d: f"{d:%m%d}{d.year:04d}"),
    st.from_regex(r"[0-9]{8}", fullmatch=True),  # months and days that do not exist, year 0
    st.text(st.characters(blacklist_categories=("Cs",)), max_size=9),
    st.text("0123456789٣", min_size=8, max_size=8),  # digits of another script: int() reads them
)


@settings(max_examples=300, deadline=None)
@given(
    st.lists(STORED, max_size=20),
    st.sampled_from([DATE, ISO, "%Y%m%d", "%d/%m/%y", "%m-%d", "%Y", "-"]),
)
def test_a_date_column_is_write_dates_value_by_value(stored, form):
    try:
        expected = write_dates(stored, form)
    except ValueError:  # a stored date that is no day: refused both ways
        with pytest.raises(ValueError):
            date_column(pa.array(stored, pa.string()), form)
        return
    column = date_column(pa.array(stored, pa.string()), form)
    assert column.type == (pa.date32() if form == DATE else pa.string())
    assert column.to_pylist() == expected
