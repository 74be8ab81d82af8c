"""Peer-tool exports read back by the tools themselves: Splink 5 (DuckDB) and recordlinkage."""

from __future__ import annotations

import csv
import io
import json

import pytest

from app.extensions import db
from app.models import User
from app.projects.blocking.pairing import create_pairs, pair_records
from app.projects.conflicts.queue import resolve_conflict
from app.projects.exports.formats import neutralize
from app.projects.exports.peers import (
    SPLINK_COLUMNS,
    SettledPair,
    write_annotation,
    write_splink_labels,
)
from app.projects.exports.service import export_csv, export_filename, export_mimetype
from app.projects.staffing.workers import assign_workers
from tests.projects.conftest import MINDFIRL, decide, linked_project

HOSTILE = ["=1+2", "+1", "-5", "@SUM(A1)", "＝1+2", "＋1", "－5", "＠A1", " ＝1", 'a,"b"']


def _project_with_three_kinds_of_pair(people):
    """Double-coded: pair 0 both "same", pair 1 split then settled "different", the rest open."""
    project = linked_project(people)
    create_pairs(project, [["last_name"]])
    wes, wen = assign_workers(project, {"wes": 0.5, "wen": 0.5}, coders=2, start_partial=[])
    db.session.commit()
    pair_ids = [ap.pair_id for ap in wes.pairs]
    decide(wes, pair_ids[0], "same")
    decide(wen, pair_ids[0], "same")
    decide(wes, pair_ids[1], "same")
    decide(wen, pair_ids[1], "different")
    db.session.commit()
    resolve_conflict(project, pair_ids[1], "different", "high", by=db.session.get(User, 1))
    db.session.commit()
    return project, pair_ids


@pytest.mark.parametrize("value", HOSTILE)
def test_splink_cells_keep_the_value_and_quote_formulas(value):
    out = io.StringIO()
    write_splink_labels(out, [SettledPair("A", value, "B", value, True)])
    line = out.getvalue().splitlines()[1]
    assert not line.startswith(("=", "+", "-", "@", "＝", "＋", "－", "＠"))
    assert line.split(",", 1)[1].startswith('"')  # the id cell is quoted
    (row,) = list(csv.DictReader(io.StringIO(out.getvalue())))
    assert (row["unique_id_l"], row["unique_id_r"]) == (value, value)


@pytest.mark.parametrize("value", HOSTILE[:-1])
def test_labels_neutralise_full_width_and_padded_formula_starters(value):
    assert neutralize(value) == "'" + value


def test_splink_exports_settled_pairs_once_and_matches_only(app, people):
    with app.app_context():
        project, pair_ids = _project_with_three_kinds_of_pair(people)
        ids = pair_records(project.id)
        splink = list(csv.DictReader(io.StringIO(export_csv(project, "splink"))))
        assert tuple(splink[0]) == SPLINK_COLUMNS
        expected = [(*ids[p][:4], score) for p, score in ((pair_ids[0], "1"), (pair_ids[1], "0"))]
        assert [tuple(r.values()) for r in splink] == expected
        matches = list(csv.DictReader(io.StringIO(export_csv(project, "splink_matches"))))
        assert [tuple(r.values()) for r in matches] == expected[:1]
        assert export_filename(project, "splink").endswith("-splink.csv")


def test_splink_5_reads_the_export_with_the_right_truth_table(app, people, tmp_path):
    pd = pytest.importorskip("pandas")
    splink = pytest.importorskip("splink")
    import splink.comparison_library as cl
    from splink import DuckDBAPI, Linker, SettingsCreator, block_on

    assert splink.__version__ == "5.0.0"
    with app.app_context():
        project, _ = _project_with_three_kinds_of_pair(people)
        labels_path = tmp_path / "labels.csv"
        labels_path.write_text(export_csv(project, "splink"), encoding="utf-8")
        matches_path = tmp_path / "matches.csv"
        matches_path.write_text(export_csv(project, "splink_matches"), encoding="utf-8")

    db_api = DuckDBAPI()
    frames = [
        db_api.register(
            pd.read_csv(MINDFIRL / f"dev_file{n}.csv", dtype=str)
            .drop_duplicates("ID")
            .rename(columns={"ID": "unique_id"}),
            dataset_display_name=label,
        )
        for n, label in ((1, "A"), (2, "B"))
    ]
    settings = SettingsCreator(
        link_type="link_only",
        comparisons=[cl.ExactMatch("first_name"), cl.ExactMatch("dob")],
        blocking_rules_to_generate_predictions=[block_on("last_name")],
    )
    linker = Linker(frames, settings, log_level=None)
    labels = linker.table_management.register_labels_table(
        db_api.register(pd.read_csv(labels_path, dtype={"clerical_match_score": float}))
    )
    truth = linker.evaluation.accuracy_analysis_from_labels_table(labels, output_type="table")
    table = truth.as_pandas_dataframe()
    assert set(table["p"]) == {1} and set(table["n"]) == {1}

    matches = db_api.register(pd.read_csv(matches_path, dtype={"clerical_match_score": float}))
    linker.training.estimate_m_from_pairwise_labels(matches)  # reads every row as a match
    assert len(pd.read_csv(matches_path)) == 1


def test_recordlinkage_reads_the_annotation(app, people, tmp_path):
    annotation = pytest.importorskip("recordlinkage.annotation")
    with app.app_context():
        project, pair_ids = _project_with_three_kinds_of_pair(people)
        ids = pair_records(project.id)
        text = export_csv(project, "recordlinkage")
        assert export_mimetype("recordlinkage") == "application/json"
        assert export_filename(project, "recordlinkage").endswith(".json")
    path = tmp_path / "annotation.json"
    path.write_text(text, encoding="utf-8")
    result = annotation.read_annotation_file(path)
    assert result.version == 1
    assert list(result.links) == [(ids[pair_ids[0]][1], ids[pair_ids[0]][3])]
    assert list(result.distinct) == [(ids[pair_ids[1]][1], ids[pair_ids[1]][3])]
    assert len(result.unknown) == len(ids) - 2
    assert all(p["fields"] == [] for p in json.loads(text)["pairs"])
    assert "WILDING" not in text and "LYNN" not in text


def test_annotation_schema_without_the_tool():
    out = io.StringIO()
    assert write_annotation(out, [SettledPair("A", "＝1", "B", "2", False)]) == 1
    assert json.loads(out.getvalue()) == {
        "version": 1,
        "pairs": [
            {
                "identifiers": {
                    "a": {"dataset": "A", "record": "＝1"},
                    "b": {"dataset": "B", "record": "2"},
                },
                "fields": [],
                "label": 0,
            }
        ],
    }
