"""MINDFIRL's headerless pair display files (pf): section2.csv, ppirl.csv, production_p1_pf."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import pytest

from app.projects.reading.csvio import CsvImportError
from app.projects.reading.layout import MINDFIRL_LAYOUTS
from app.projects.reading.pairfile import read_pairfile

MINDFIRL = Path(__file__).parent.parent.parent / "data" / "mindfirl"
STUDY = list(MINDFIRL_LAYOUTS[18])


def test_section2_imports_with_its_per_pair_truth_as_clusters():
    parsed = read_pairfile(MINDFIRL / "section2.csv", names=STUDY, pair_truth="truth")
    assert len(parsed.pairs) == 331 and parsed.pairs[0].pair_id == "1"
    assert (parsed.pairs[0].id_a, parsed.pairs[0].id_b) == ("1-A", "1-B")
    same = [
        p for p in parsed.pairs
        if parsed.records_a[p.id_a]["truth"] == parsed.records_b[p.id_b]["truth"]
    ]  # fmt: skip
    assert len(same) == 167  # the README's 167 same / 164 different
    assert parsed.records_a["2-A"]["truth"] == "2" and parsed.records_a["1-A"]["truth"] == "1-A"
    assert parsed.records_a["1-A"]["voter_reg_num"] is None  # a missing id, as in the study
    assert parsed.frequencies.first["NELSON"] == 206
    assert "FFreq" not in parsed.attributes and "PairID" not in parsed.attributes


def test_production_pf_with_mindfirls_11_attributes():
    parsed = read_pairfile(MINDFIRL / "production_p1_pf.csv", names=list(MINDFIRL_LAYOUTS[28]))
    assert len(parsed.pairs) == 12
    assert parsed.records_a["1-A"]["dob"] == "07041946"
    assert parsed.frequencies.first == {"LYNN": 8, "JEAN EWART": 8, "CLARETTA": 8}
    assert Counter(parsed.attributes.values())["date"] == 1


NAMES = ["PairID", "ID", "first_name", "dob", "truth"]


@pytest.mark.parametrize(
    ("body", "line", "column", "message"),
    [
        ("1,a,ANN,01/02/1990,1\n", 1, "PairID", "this pair has 1 row(s) (line 1); it needs 2"),
        ("1,a,ANN,01/02/1990,1\n1,b,ANN,,0\n", 2, "truth", "give different truths"),
        ("1,a,ANN,01/02/1990,7\n1,b,ANN,,7\n", 1, "truth", "1 (same) or 0"),
        ("1,a,ANN,02/30/1990,1\n1,b,ANN,,1\n", 1, "dob", "not a calendar date"),
        (",a,ANN,,1\n", 1, "PairID", "empty PairID"),
        ("1,a,ANN,,1\n1,b,ANN\n", 2, None, "expected 5 fields, found 3"),
        (
            "1,a,ANN,,1\n1,b,ANN,,1\n2,a,ZED,,1\n2,c,ANN,,1\n",
            3, "first_name", "this A record (the ID of line 1) differs from it in first_name",
        ),
    ],
)  # fmt: skip
def test_malformed_display_files_name_line_and_column(body, line, column, message):
    with pytest.raises(CsvImportError) as caught:
        read_pairfile(body.encode(), names=NAMES, pair_truth="truth")
    found = [p for p in caught.value.problems if (p.line, p.column) == (line, column)]
    assert found and message in found[0].message, caught.value.problems
    assert "ANN" not in str(caught.value) and "ZED" not in str(caught.value)


def test_given_ids_join_a_record_repeated_across_pairs():
    body = "1,a,ANN,,1\n1,b,ANN,,1\n2,a,ANN,,1\n2,c,ANN,,1\n"
    parsed = read_pairfile(body.encode(), names=NAMES)
    assert sorted(parsed.records_a) == ["a"] and sorted(parsed.records_b) == ["b", "c"]


def test_invalid_dates_kept_as_missing_in_a_pair_file():
    body = "1,a,ANN,19901302,\n1,b,ANN,19900102,\n"
    parsed = read_pairfile(
        body.encode(), names=NAMES, attributes={"dob": "date"},
        formats={"dob": "%Y%m%d"}, invalid_dates="missing",
    )  # fmt: skip
    assert parsed.records_a["a"]["dob"] is None and parsed.records_b["b"]["dob"] == "01021990"
    assert [(p.line, p.column) for p in parsed.missing] == [(1, "dob")]
