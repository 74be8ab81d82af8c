"""Exports: Splink labels, MINDFIRL's result file, clusters, linked data, CSV injection."""

from __future__ import annotations

import csv
import io
from datetime import UTC, datetime
from pathlib import Path

import pytest

from app.projects.exports.formats import (
    LABEL_COLUMNS,
    Confidence,
    Decision,
    Judgement,
    LabelRow,
    clusters,
    match_score,
    mindfirl_choice,
    neutralize,
    write_clusters,
    write_labels,
    write_legacy_result,
    write_linked_dataset,
)
from app.projects.reading.mapping import ColumnMapping
from app.projects.reading.pairfile import read_pairfile
from app.projects.reading.records import read_records

DATA = Path(__file__).parent.parent.parent / "data"
SAME, DIFF = Decision.SAME, Decision.DIFFERENT
LOW, MED, HIGH = Confidence.LOW, Confidence.MEDIUM, Confidence.HIGH


def rows_of(text: str) -> list[list[str]]:
    return list(csv.reader(io.StringIO(text)))


@pytest.mark.parametrize(
    ("value", "cell"),
    [
        ('=HYPERLINK("http://x","y")', '\'=HYPERLINK("http://x","y")'),
        ("+1-2", "'+1-2"),
        ("-5", "'-5"),
        ("@SUM(A1)", "'@SUM(A1)"),
        ("\tx", "'\tx"),
        ("\rx", "'\rx"),
        ("a=b", "a=b"),
        ("Smith", "Smith"),
        ("", ""),
        (None, ""),
        (3, "3"),
    ],
)
def test_neutralize(value, cell):
    assert neutralize(value) == cell


@pytest.mark.parametrize(
    ("judgement", "choice", "score"),
    [
        (Judgement(DIFF, HIGH), 1, 0.0),
        (Judgement(DIFF, MED), 2, 0.2),
        (Judgement(DIFF, LOW), 3, 0.4),
        (Judgement(SAME, LOW), 4, 0.6),
        (Judgement(SAME, MED), 5, 0.8),
        (Judgement(SAME, HIGH), 6, 1.0),
        (Judgement(SAME), None, 1.0),
        (Judgement(DIFF), None, 0.0),
        (Judgement(), None, None),
    ],
)
def test_choice_and_score(judgement, choice, score):
    assert mindfirl_choice(judgement) == choice
    assert match_score(judgement) == (None if score is None else pytest.approx(score))


def test_labels_are_splink_compatible_and_keep_undecided_pairs():
    out = io.StringIO()
    written = write_labels(
        out,
        [
            LabelRow(
                "A",
                "1",
                "B",
                "2",
                Judgement(SAME, HIGH),
                "ann",
                datetime(2025, 1, 2, tzinfo=UTC),
                0.25,
                Judgement(DIFF, MED),
                "manager",
                "=0",
                "band",
                2,
                0.4,
                -0.5849625007211563,
            ),
            LabelRow("A", "=1+1", "B", "3"),
        ],
    )
    assert written == 2
    assert rows_of(out.getvalue()) == [
        list(LABEL_COLUMNS),
        ["A", "1", "B", "2", "1", "same", "high", "ann", "2025-01-02T00:00:00+00:00", "0.25"]
        + ["different", "medium", "manager", "'=0", "band", "2", "0.4", "-0.5849625007211563"],
        ["A", "'=1+1", "B", "3", "", "", "", "", "", "", "", "", "", "", "", "", "", ""],
    ]
    assert LABEL_COLUMNS[:5] == (
        "source_dataset_l",
        "unique_id_l",
        "source_dataset_r",
        "unique_id_r",
        "clerical_match_score",
    )


def _golden_judgements() -> dict[str, Judgement]:
    golden = rows_of((DATA / "mindfirl" / "production_p1_finalresult.csv").read_text())
    by_choice = {c: Judgement(DIFF, Confidence(4 - c)) for c in (1, 2, 3)}
    by_choice |= {c: Judgement(SAME, Confidence(c - 3)) for c in (4, 5, 6)}
    return {row[0]: by_choice[int(row[16])] for row in golden[1:]}


def test_legacy_result_reproduces_mindfirl_byte_for_byte():
    pairfile = read_pairfile(DATA / "mindfirl" / "pairfile_extra.csv")
    out = io.StringIO()
    assert write_legacy_result(out, pairfile, _golden_judgements()) == 12
    golden = (DATA / "mindfirl" / "production_p1_finalresult.csv").read_text()
    assert out.getvalue() == golden


def test_legacy_result_writes_unanswered_pairs_as_undecided():
    pairfile = read_pairfile(DATA / "mindfirl" / "pairfile_extra.csv")
    answered = {"1": Judgement(SAME, HIGH), "2": Judgement(DIFF)}
    out = io.StringIO()
    write_legacy_result(out, pairfile, answered)
    rows = rows_of(out.getvalue())
    assert all(len(row) == 17 for row in rows)
    assert [row[-2:] for row in rows[1:7]] == [["1", "6"]] * 2 + [["0", ""]] * 2 + [["", ""]] * 2


def test_legacy_result_neutralises_formulas_from_the_pair_file():
    data = b"PairID,GroupID,DB,ID,first_name\n1,1,A,a,=cmd|' /C calc'!A0\n1,1,B,b,Ann\n"
    out = io.StringIO()
    write_legacy_result(out, read_pairfile(data), {})
    assert rows_of(out.getvalue())[1][4] == "'=cmd|' /C calc'!A0"


def test_clusters_are_connected_components_of_same_decisions():
    nodes = [("A", "1"), ("A", "2"), ("B", "1"), ("B", "2"), ("B", "3")]
    same = [(("A", "1"), ("B", "2")), (("B", "2"), ("B", "3")), (("B", "3"), ("A", "1"))]
    assert clusters(nodes, same) == {
        ("A", "1"): 1,
        ("A", "2"): 2,
        ("B", "1"): 3,
        ("B", "2"): 1,
        ("B", "3"): 1,
    }


def test_clusters_add_nodes_named_only_in_pairs_and_handle_long_chains():
    assert clusters([], [("x", "y")]) == {"x": 1, "y": 1}
    chain = list(range(100_000))
    assignment = clusters(chain, zip(chain, chain[1:], strict=False))
    assert set(assignment.values()) == {1}


def test_write_clusters():
    out = io.StringIO()
    write_clusters(out, {("A", "1"): 1, ("B", "-7"): 1, ("A", "2"): 2})
    assert rows_of(out.getvalue()) == [
        ["cluster_id", "source_dataset", "unique_id"],
        ["1", "A", "1"],
        ["1", "B", "'-7"],
        ["2", "A", "2"],
    ]


def test_linked_dataset_has_cluster_and_sensitive_values_only():
    mapping = ColumnMapping("ID", {"first_name": "string"}, sensitive=("notes",))
    chunks = read_records(DATA / "malformed" / "formula_injection.csv", mapping)
    imported = [r for chunk in chunks for r in chunk]  # the formula imports fine
    vault = {f"p{r.record_id}": r.sensitive for r in imported}
    out = io.StringIO()
    assert write_linked_dataset(out, [("p1", 7), ("p2", 7)], vault, ["notes"]) == 2
    text = out.getvalue()
    assert rows_of(text) == [
        ["cluster_id", "notes"],
        ["7", '\'=HYPERLINK("http://x","y")'],
        ["7", "'+1-2"],
    ]
    assert "p1" not in text and "Ann" not in text


def test_linked_dataset_reports_a_record_missing_from_the_vault():
    with pytest.raises(ValueError, match="no sensitive values for record p9"):
        write_linked_dataset(io.StringIO(), [("p9", 1)], {}, ["notes"])


def test_linked_dataset_leaves_missing_columns_empty():
    out = io.StringIO()
    write_linked_dataset(out, [("p1", 1)], {"p1": {"notes": None}}, ["notes", "income"])
    assert rows_of(out.getvalue())[1] == ["1", "", ""]
