"""MINDFIRL's internal pair file (``production_p1_pairfile.csv``), read as MINDFIRL read it."""

from __future__ import annotations

from pathlib import Path

import pytest

from app.projects.reading.csvio import CsvImportError
from app.projects.reading.pairfile import PAIRFILE_ATTRIBUTES, Pair, read_pairfile

MINDFIRL = Path(__file__).parent.parent.parent / "data" / "mindfirl"
GOLDEN = MINDFIRL / "production_p1_pairfile.csv"
HEADER = "ID,voter_reg_num,first_name,last_name,dob,type,file_id,cntfn,cntln,same\n"
ROW = "{id},{reg},{first},SMITH,01/02/1990,1,1-{side},{cf},3,{same}\n"


def row(pair_id, reg="1000000001", first="ANN", side="A", cf=2, same=0):
    return ROW.format(id=pair_id, reg=reg, first=first, side=side, cf=cf, same=same)


def test_golden_file_pairs_first_row_left_and_stores_each_record_once():
    parsed = read_pairfile(GOLDEN)
    assert [p.pair_id for p in parsed.pairs] == [str(i) for i in range(1, 13)]
    # Three distinct record pairs, each repeated in four pairs: three records per side.
    assert len(parsed.records_a) == len(parsed.records_b) == 3
    assert parsed.pairs[0] == Pair("1", "", "1-A", "1-B")
    assert parsed.pairs[3] == Pair("4", "", "1-A", "1-B")
    assert parsed.pairs[2] == Pair("3", "", "3-A", "3-B")
    # The first row of each ID is the left record (source A), whatever its file_id says:
    # MINDFIRL's first row is labelled 1-B but is database A's record (pairfile_extra.csv).
    assert parsed.records_a["1-A"]["voter_reg_num"] == "1000000657"
    assert parsed.records_b["1-B"]["voter_reg_num"] == "1000000653"
    assert parsed.records_a["1-A"]["dob"] == "07041946"
    assert parsed.attributes == PAIRFILE_ATTRIBUTES
    columns = {c for r in (*parsed.records_a.values(), *parsed.records_b.values()) for c in r}
    assert columns.isdisjoint({"ID", "type", "file_id", "cntfn", "cntln", "same"})


def test_golden_file_carries_its_name_counts():
    parsed = read_pairfile(GOLDEN)
    names = {"LYNN", "JEAN EWART", "CLARETTA"}
    assert parsed.frequencies.first == dict.fromkeys(names, 8)
    assert parsed.frequencies.last == dict.fromkeys({"WILDING", "ABERNATHY", "ADAMS"}, 8)


def test_pairs_form_by_id_even_when_rows_are_not_consecutive():
    body = HEADER + row(1) + row(2, reg="2") + row(1, reg="3", side="B") + row(2, side="B")
    parsed = read_pairfile(body.encode())
    assert [(p.pair_id, p.id_a, p.id_b) for p in parsed.pairs] == [("1", "1-A", "1-B"),
                                                                  ("2", "2-A", "2-B")]  # fmt: skip


def test_a_name_counted_differently_on_the_two_sides_keeps_the_larger_count():
    body = HEADER + row(1, cf=2) + row(1, side="B", cf=5)
    assert read_pairfile(body.encode()).frequencies.first == {"ANN": 5}


def test_a_same_record_on_both_sides_is_one_record_per_side():
    parsed = read_pairfile((HEADER + row(1) + row(1, side="B")).encode())
    assert list(parsed.records_a) == ["1-A"] and list(parsed.records_b) == ["1-B"]


SECRET = "ZEBEDEE"


@pytest.mark.parametrize(
    ("body", "line", "column", "message"),
    [
        (HEADER + row(1) + row(1, side="B") + row(2), 4, "ID", "this pair has 1 row(s) (line 4)"),
        (HEADER + row(1) + row(2, side="B"), 2, "ID", "this pair has 1 row(s) (line 2)"),
        (
            HEADER + row(1) + row(1, side="B") + row(1, side="B"),
            2, "ID", "this pair has 3 row(s) (line 2, 3, 4)",
        ),
        (HEADER + row(1) + "1,1,ANN\n", 3, None, "expected 10 fields, found 3"),
        (HEADER + row(1) + row(1, side="B", cf=SECRET), 3, "cntfn", "whole number"),
        (HEADER + row(1) + row(1, side="B", same=SECRET), 3, "same", "0, 1 or empty"),
        (HEADER + row(1) + row("", side="B"), 3, "ID", "empty pair ID"),
        (
            HEADER.replace(",cntln", "") + "1,1,ANN,SMITH,01/02/1990,1,1-A,2,0\n",
            1, None, "missing column(s) cntln",
        ),
    ],
)  # fmt: skip
def test_malformed_files_name_line_and_column_never_the_value(body, line, column, message):
    with pytest.raises(CsvImportError) as caught:
        read_pairfile(body.encode())
    problems = caught.value.problems
    found = [p for p in problems if (p.line, p.column) == (line, column) and message in p.message]
    assert found, problems
    assert all(SECRET not in p.message for p in problems)


def test_every_problem_is_reported_not_only_the_first():
    body = HEADER + row(1) + row(2, side="B") + row(3, cf="x") + row(3, side="B", same="x")
    problems = _problems(body)
    assert {(p.line, p.column) for p in problems} == {(2, "ID"), (3, "ID"), (4, "cntfn"),
                                                      (5, "same")}  # fmt: skip


def test_an_invalid_date_is_reported_without_its_value():
    body = HEADER + row(1) + row(1, side="B").replace("01/02/1990", "13/45/1990")
    problems = _problems(body)
    assert [(p.line, p.column) for p in problems] == [(3, "dob")]
    assert "13/45" not in problems[0].message


def _problems(body: str):
    with pytest.raises(CsvImportError) as caught:
        read_pairfile(body.encode())
    return caught.value.problems
