"""MINDFIRL pair file and name-frequency file."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import pytest

from app.core.disclosure import AttributeType
from app.projects.reading.csvio import CsvImportError
from app.projects.reading.pairfile import (
    PAIRFILE_ATTRIBUTES,
    Pair,
    read_name_frequencies,
    read_pairfile,
)

MINDFIRL = Path(__file__).parent.parent.parent / "data" / "mindfirl"
HEADER = "PairID,GroupID,DB,ID,first_name,dob\n"


def test_demo_pair_file_has_12_pairs_in_3_blocks():
    parsed = read_pairfile(MINDFIRL / "pairfile_extra.csv")
    assert len(parsed.pairs) == 12
    assert Counter(p.block_id for p in parsed.pairs) == {"1": 2, "2": 4, "3": 6}
    assert parsed.pairs[0] == Pair("1", "1", "1", "2")
    assert {(p.id_a, p.id_b) for p in parsed.pairs} == {("1", "2"), ("4", "3"), ("5", "7")}
    assert sorted(parsed.records_a) == ["1", "4", "5"]
    assert sorted(parsed.records_b) == ["2", "3", "7"]
    assert parsed.attributes == PAIRFILE_ATTRIBUTES
    assert parsed.records_b["3"]["first_name"] == "JEAN EWART"
    assert parsed.records_a["1"]["dob"] == "07041946"


def test_unknown_attribute_columns_are_strings():
    parsed = read_pairfile((HEADER + "1,1,A,a,Ann,01/02/1990\n1,1,B,b,Ann,\n").encode())
    assert parsed.attributes == {"first_name": "string", "dob": AttributeType.DATE}
    assert parsed.records_b == {"b": {"first_name": "Ann", "dob": None}}


@pytest.mark.parametrize(
    ("body", "line", "message"),
    [
        ("", None, "the file is empty"),
        ("PairID,GroupID,ID,first_name\n1,1,a,Ann\n", 1, "missing column(s) DB; found"),
        (HEADER, 1, "header row but no data rows"),
        (HEADER + "1,1,A,a,Ann\n", 2, "expected 6 fields, found 5"),
        (HEADER + "1,1,C,a,Ann,\n1,1,B,b,Ann,\n", 2, "DB must be A or B"),
        (HEADER + ",1,A,a,Ann,\n", 2, "empty PairID"),
        (HEADER + "1,1,A,,Ann,\n1,1,B,b,Ann,\n", 2, "empty ID"),
        (
            HEADER + "1,1,A,a,Ann,\n1,1,A,c,Ann,\n1,1,B,b,Ann,\n",
            3,
            "this pair has a second A row (the first on line 2)",
        ),
        (HEADER + "1,1,A,a,Ann,\n", 2, "this pair has no B row"),
        (HEADER + "1,1,A,a,Ann,\n1,2,B,b,Ann,\n", 3, "this pair is in another block on line 2"),
        (
            HEADER + "1,1,A,a,Ann,\n1,1,B,b,Ann,\n2,1,A,a,Anne,\n2,1,B,b,Ann,\n",
            4,
            "this A record (the ID of line 2) differs from it in first_name",
        ),
        (HEADER + "1,1,A,a,Ann,02/30/1990\n1,1,B,b,Ann,\n", 2, "not a calendar date"),
    ],
)
def test_malformed_pair_file(body, line, message):
    with pytest.raises(CsvImportError) as caught:
        read_pairfile(body.encode())
    first = caught.value.problems[0]
    assert (first.line, message in first.message) == (line, True), first


@pytest.mark.parametrize(
    "rows",
    [
        "P~1,G~1,A,I~a,Ann,\nP~1,G~1,A,I~c,Ann,\nP~1,G~1,B,I~b,Ann,\n",
        "P~1,G~1,A,I~a,Ann,\n",
        "P~1,G~1,A,I~a,Ann,\nP~1,G~2,B,I~b,Ann,\n",
        "P~1,G~1,A,I~a,Ann,\nP~1,G~1,B,I~b,Ann,\nP~2,G~1,A,I~a,Anne,\nP~2,G~1,B,I~b,Ann,\n",
    ],
)
def test_pair_file_problems_quote_no_pair_block_or_record_id(rows):
    """Issue 28: a message names the line and the column, never an id (ids may identify)."""
    with pytest.raises(CsvImportError) as caught:
        read_pairfile((HEADER + rows).encode())
    assert all("~" not in str(problem) for problem in caught.value.problems)


def test_lower_case_db_is_accepted():
    parsed = read_pairfile((HEADER + "1,1,a,x,Ann,\n1,1,b,y,Ann,\n").encode())
    assert parsed.pairs == [Pair("1", "1", "x", "y")]


def test_pair_file_problems_are_capped():
    body = HEADER + "".join(f"{i},1,A,a{i},Ann,\n" for i in range(30))
    with pytest.raises(CsvImportError) as caught:
        read_pairfile(body.encode(), max_errors=5)
    assert len(caught.value.problems) == 5
    assert caught.value.truncated


def test_demo_name_frequencies_keep_counts_over_100():
    freq = read_name_frequencies(MINDFIRL / "name_freq.csv")
    assert freq.first == {"LYNN": 100, "JEAN EWART": 1, "CLARETTA": 1006}
    assert freq.last == {"WILDING": 143, "ABERNATHY": 5, "ADAMS": 65}


@pytest.mark.parametrize(
    ("body", "line", "message"),
    [
        ("", None, "the file is empty"),
        ("X,LYNN,3\n", 1, "the first field must be F or L"),
        ("F,LYNN,3\nF,LYNN,4\n", 2, "this name is listed again (line 1)"),
        ("F,LYNN\n", 1, "expected 3 fields (F|L,name,count), found 2"),
        ("F,LYNN,-3\n", 1, "count must be a whole number from 0 to 2,147,483,647"),
        ("F,LYNN,many\n", 1, "count must be a whole number from 0 to 2,147,483,647"),
        ("F,LYNN,2147483648\n", 1, "count must be a whole number from 0 to 2,147,483,647"),
        ("L, ,4\n", 1, "empty name"),
    ],
)
def test_malformed_name_frequencies(body, line, message):
    with pytest.raises(CsvImportError) as caught:
        read_name_frequencies(body.encode())
    first = caught.value.problems[0]
    assert (first.line, first.message) == (line, message)
    assert not any(v in first.message for v in ("LYNN", "many", "-3", "X"))


def test_same_name_may_be_first_and_last():
    freq = read_name_frequencies(b"f,ADAMS,2\nL, ADAMS ,7\n")
    assert (freq.first, freq.last) == ({"ADAMS": 2}, {"ADAMS": 7})
