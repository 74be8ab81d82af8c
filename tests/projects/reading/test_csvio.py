"""CSV reading: the malformed-input corpus, MINDFIRL's demo files, limits and streaming."""

from __future__ import annotations

import csv
import io
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from app.core.disclosure import AttributeType
from app.projects.reading.csvio import MAX_LINE_BYTES, CsvImportError, ImportProblem, preview
from app.projects.reading.mapping import ColumnMapping
from app.projects.reading.records import read_records, validate_file

DATA = Path(__file__).parent.parent.parent / "data"
MALFORMED = DATA / "malformed"
MINDFIRL = DATA / "mindfirl"

MAPPING = ColumnMapping(
    "ID",
    {"first_name": "string", "last_name": "string", "dob": "date"},
    sensitive=("notes",),
)
DEV_MAPPING = ColumnMapping(
    "ID",
    {
        "voter_reg_num": AttributeType.ID,
        "first_name": AttributeType.STRING,
        "last_name": AttributeType.STRING,
        "dob": AttributeType.DATE,
        "sex": AttributeType.CATEGORY,
        "race": AttributeType.CATEGORY,
    },
    sensitive=("info1", "info2", "info3", "info4", "info5"),
)


def records(source, mapping=MAPPING, **options):
    return [r for chunk in read_records(source, mapping, **options) for r in chunk]


# file, line of the first problem (None = whole file), text the message must contain
REJECTED = [
    ("latin1.csv", 3, "not valid UTF-8: byte 0xfc at byte offset 60"),
    ("bom_latin1_body.csv", 2, "not valid UTF-8: byte 0xe9 at byte offset 41"),
    ("binary.csv", None, "this is a PNG image, not a CSV file"),
    ("utf16_bom.csv", 1, "UTF-16"),
    ("utf16le_no_bom.csv", 1, "NUL bytes"),
    ("missing_id_column.csv", 1, "no column 'ID' in the header; found 'Key'"),
    ("no_header.csv", 1, "no mapped column in the first line, which must be the header"),
    ("missing_mapped_column.csv", 1, "no column 'dob' in the header"),
    ("duplicate_header.csv", 1, "column 'last_name' appears 2 times"),
    ("duplicate_ids.csv", 4, "duplicate id (first seen on line 3)"),
    ("duplicate_ids_whitespace.csv", 4, "duplicate id (first seen on line 2)"),
    ("empty_id.csv", 4, "empty id"),
    ("ragged_short.csv", 4, "expected 5 fields (as in the header), found 4"),
    ("ragged_long.csv", 2, "expected 5 fields (as in the header), found 6"),
    ("empty.csv", None, "the file is empty"),
    ("blank_lines_only.csv", None, "the file is empty"),
    ("header_only.csv", 1, "header row but no data rows"),
    ("header_then_blank_rows.csv", 1, "header row but no data rows"),
    ("bad_date.csv", 2, "not a calendar date (day is out of range for month)"),
    ("bad_date_format.csv", 2, "not a date in MM/DD/YYYY or YYYY-MM-DD"),
    ("unterminated_quote.csv", 2, 'unterminated quoted field: a " opened here is never closed'),
    ("text_after_quote.csv", 2, "malformed CSV (',' expected after '\"')"),
    # The quoted newline makes line 3 part of record 1, so the bad date is on line 4.
    ("newline_then_error.csv", 4, "not a calendar date (month must be in 1..12)"),
]

# file, detected delimiter, number of records
ACCEPTED = [
    ("bom_utf8.csv", ",", 2),
    ("crlf.csv", ",", 2),
    ("semicolon.csv", ";", 2),
    ("semicolon_decimal_commas.csv", ";", 2),
    ("tab.tsv", "\t", 2),
    ("pipe.csv", "|", 2),
    ("quoted_commas.csv", ",", 1),
    ("quoted_newlines.csv", ",", 2),
    ("formula_injection.csv", ",", 2),
    ("utf8_names.csv", ",", 1),
    ("iso_dates_missing_values.csv", ",", 2),
    ("trailing_blank_lines.csv", ",", 2),
    ("no_final_newline.csv", ",", 2),
]


def test_corpus_is_fully_covered():
    listed = {name for name, *_ in REJECTED + ACCEPTED}
    assert listed == {p.name for p in MALFORMED.iterdir()}
    assert len(listed) >= 20


@pytest.mark.parametrize(("name", "line", "message"), REJECTED)
def test_rejected_file_names_line_and_cause(name, line, message):
    with pytest.raises(CsvImportError) as caught:
        validate_file(MALFORMED / name, MAPPING)
    first = caught.value.problems[0]
    assert first.line == line
    assert message in first.message
    assert message in str(caught.value)


@pytest.mark.parametrize(("name", "line", "message"), REJECTED)
def test_rejected_file_yields_no_record(name, line, message):
    with pytest.raises(CsvImportError):
        read_records(MALFORMED / name, MAPPING)


@pytest.mark.parametrize(("name", "delimiter", "count"), ACCEPTED)
def test_accepted_file(name, delimiter, count):
    report = validate_file(MALFORMED / name, MAPPING)
    assert (report.delimiter, report.records, report.dropped) == (delimiter, count, [])
    got = records(MALFORMED / name)
    assert len(got) == count
    assert got[0].record_id == "1"
    assert got[0].identifying["first_name"] in ("Ann", "Zoë")


def test_bom_is_not_part_of_the_first_column():
    shown = preview(MALFORMED / "bom_utf8.csv")
    assert shown.header[0] == "ID"
    assert shown.has_bom


def test_quoted_delimiters_quotes_and_newlines_survive():
    (one,) = records(MALFORMED / "quoted_commas.csv")
    assert one.identifying["last_name"] == "Lee, Jr."
    assert one.sensitive["notes"] == 'a "quoted" note'
    first, second = records(MALFORMED / "quoted_newlines.csv")
    assert first.sensitive["notes"] == "line one\nline two"
    assert second.line == 4


def test_formula_cells_import_verbatim():
    first, second = records(MALFORMED / "formula_injection.csv")
    assert first.sensitive["notes"] == '=HYPERLINK("http://x","y")'
    assert (second.identifying["first_name"], second.sensitive["notes"]) == ("@Bob", "+1-2")


def test_missing_values_and_iso_dates_are_normalised():
    first, second = records(MALFORMED / "iso_dates_missing_values.csv")
    assert first.identifying == {"first_name": "Ann", "last_name": None, "dob": "02011990"}
    assert second.identifying["dob"] is None


def test_ten_megabyte_line_is_rejected_without_reading_it_whole(tmp_path):
    path = tmp_path / "huge.csv"
    with path.open("w") as out:
        out.write("ID,first_name,last_name,dob,notes\n1,Ann,Lee,01/02/1990,")
        out.write("x" * (10 * 1024 * 1024) + "\n2,Bob,Ray,03/04/1985,y\n")
    for check in (lambda: validate_file(path, MAPPING), lambda: preview(path)):
        with pytest.raises(CsvImportError) as caught:
            check()
        assert caught.value.problems == [
            ImportProblem(2, None, f"line is longer than the limit of {MAX_LINE_BYTES:,} bytes")
        ]


def test_quoted_field_over_the_limit_across_many_lines(tmp_path):
    path = tmp_path / "tall.csv"
    body = "\n".join(["y" * 1000] * 1200)
    path.write_text(f'ID,first_name,last_name,dob,notes\n1,Ann,Lee,01/02/1990,"{body}"\n')
    with pytest.raises(CsvImportError, match="a field is longer than the limit") as caught:
        validate_file(path, MAPPING)
    assert caught.value.problems[0].line == 2


def test_mindfirl_dev_files_are_rejected_by_default():
    with pytest.raises(CsvImportError) as caught:
        validate_file(MINDFIRL / "dev_file1.csv", DEV_MAPPING)
    assert [(p.line, p.message) for p in caught.value.problems] == [
        (3, "duplicate id (first seen on line 2)"),
        (5, "duplicate id (first seen on line 4)"),
        (9, "duplicate id (first seen on line 8)"),
        (12, "duplicate id (first seen on line 11)"),
    ]
    with pytest.raises(CsvImportError) as caught:
        validate_file(MINDFIRL / "dev_file2.csv", DEV_MAPPING)
    assert ImportProblem(9, None, "expected 12 fields (as in the header), found 11") in (
        caught.value.problems
    )


@pytest.mark.parametrize("name", ["dev_file1.csv", "dev_file2.csv"])
def test_keep_first_reproduces_mindfirl(name):
    report = validate_file(MINDFIRL / name, DEV_MAPPING, on_duplicate_id="keep_first")
    assert report.records == 15
    assert [(p.line, p.message) for p in report.dropped] == [
        (3, "dropped: duplicate id, kept line 2"),
        (5, "dropped: duplicate id, kept line 4"),
        (9, "dropped: duplicate id, kept line 8"),
        (12, "dropped: duplicate id, kept line 11"),
    ]
    got = records(MINDFIRL / name, DEV_MAPPING, on_duplicate_id="keep_first")
    assert [r.record_id for r in got] == [str(i) for i in range(1, 16)]
    assert [r.line for r in got][:6] == [2, 4, 6, 7, 8, 10]


def test_keep_first_keeps_dev_file2s_shifted_row_as_mindfirl_does():
    got = records(MINDFIRL / "dev_file2.csv", DEV_MAPPING, on_duplicate_id="keep_first")
    five = got[4]
    assert five.identifying["race"] == "6423923551"
    assert five.sensitive["info5"] == "77843"


def test_problems_are_capped(tmp_path):
    path = tmp_path / "dups.csv"
    path.write_text("ID,first_name,last_name,dob,notes\n" + "1,a,b,,\n" * 50)
    with pytest.raises(CsvImportError) as caught:
        validate_file(path, MAPPING, max_errors=10)
    # The first 10 are listed, all 49 counted: the list says how many it leaves out.
    assert len(caught.value.problems) == 10
    assert caught.value.truncated and caught.value.total == 49 and caught.value.more == 39
    assert str(caught.value).endswith("and 46 more")


def test_read_records_streams_in_chunks(tmp_path):
    path = tmp_path / "many.csv"
    rows = "".join(f"{i},N{i},L{i % 7},01/02/1990,n\n" for i in range(2500))
    path.write_text("ID,first_name,last_name,dob,notes\n" + rows)
    chunks = read_records(path, MAPPING, chunk_size=1000)
    assert [len(c) for c in chunks] == [1000, 1000, 500]


def test_read_records_validates_before_the_first_chunk(tmp_path):
    path = tmp_path / "late_error.csv"
    rows = "".join(f"{i},N,L,01/02/1990,n\n" for i in range(100))
    path.write_text("ID,first_name,last_name,dob,notes\n" + rows + "5,N,L,01/02/1990,n\n")
    with pytest.raises(CsvImportError, match="duplicate id"):
        read_records(path, MAPPING, chunk_size=10)
    lazy = read_records(path, MAPPING, chunk_size=10, validate=False)
    assert len(next(lazy)) == 10  # streamed before the bad line was read
    with pytest.raises(CsvImportError, match="duplicate id"):
        list(lazy)


def test_source_column_makes_ids_unique_per_source():
    data = b"src,ID,first_name,last_name,dob,notes\nA,1,a,b,,\nB,1,a,b,,\nB,1,c,d,,\n,2,e,f,,\n"
    mapping = ColumnMapping("ID", {"first_name": "string"}, source_column="src")
    with pytest.raises(CsvImportError) as caught:
        validate_file(data, mapping)
    assert [(p.line, p.column, p.message) for p in caught.value.problems] == [
        (4, "ID", "duplicate id (first seen on line 3)"),
        (5, "src", "empty source"),
    ]


def test_over_long_id_is_rejected():
    data = ("ID,first_name,last_name,dob,notes\n" + "9" * 101 + ",a,b,,\n").encode()
    with pytest.raises(CsvImportError, match="column 'ID': longer than 100 characters"):
        validate_file(data, MAPPING)


def test_preview_reads_bytes_and_honours_a_given_delimiter():
    data = (MALFORMED / "semicolon.csv").read_bytes()
    shown = preview(data, rows=1)
    assert (shown.delimiter, shown.header[-1], shown.rows) == (
        ";",
        "notes",
        [["1", "Ann", "Lee", "01/02/1990", "x"]],
    )
    forced = preview(data, delimiter=",")
    assert forced.header == ["ID;first_name;last_name;dob;notes"]


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"identifying": {"a": "string"}, "sensitive": ("a",)}, "more than one role: a"),
        ({"sensitive": ("ID",)}, "more than one role: ID"),
        ({"identifying": {"a": "number"}}, "'number' is not a valid AttributeType"),
    ],
)
def test_bad_mapping(kwargs, message):
    with pytest.raises(ValueError, match=message):
        ColumnMapping("ID", **kwargs)


def test_id_column_may_also_be_identifying():
    mapping = ColumnMapping("ID", {"ID": "id", "first_name": "string"})
    (one, _) = records(MALFORMED / "crlf.csv", mapping)
    assert one.identifying == {"ID": "1", "first_name": "Ann"}


def test_unknown_duplicate_policy():
    with pytest.raises(ValueError, match="on_duplicate_id"):
        validate_file(MALFORMED / "crlf.csv", MAPPING, on_duplicate_id="keep_last")


# Any text but NUL (rejected as a sign of UTF-16) and surrogates (not encodable).
TEXT = st.text(
    st.characters(codec="utf-8", exclude_characters="\x00") | st.sampled_from(",;\t|\"'\n\r "),
    max_size=12,
)


@settings(max_examples=60, deadline=None)
@given(
    delimiter=st.sampled_from(",;\t|"),
    notes=st.lists(TEXT, min_size=1, max_size=6),
    bom=st.booleans(),
)
def test_round_trip_through_csv_writer(delimiter, notes, bom):
    buffer = io.StringIO()
    writer = csv.writer(buffer, delimiter=delimiter, lineterminator="\r\n")
    writer.writerow(["ID", "first_name", "notes"])
    for i, note in enumerate(notes):
        writer.writerow([str(i), f"N{i}", note])
    data = (b"\xef\xbb\xbf" if bom else b"") + buffer.getvalue().encode()
    mapping = ColumnMapping("ID", {"first_name": "string"}, sensitive=("notes",))
    got = records(data, mapping)
    assert [r.sensitive["notes"] for r in got] == [n.strip() for n in notes]
