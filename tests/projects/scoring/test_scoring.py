"""Scoring a project's records with Splink inside the application (DuckDB), as a job."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pyarrow.parquet as pq
import pytest

from app.extensions import db
from app.models import Job, Project, ScoringModel, User
from app.projects.blocking import candidate_pairs, parse_rules
from app.projects.blocking.pairing import _records
from app.projects.scoring import ScoringRefused, submit_scoring, upload_model
from app.projects.scoring.runs.engine import OUTPUT_SCHEMA
from tests.projects.scoring.oracle import splink_predictions

pytestmark = pytest.mark.slow


def _score(app, project_id: int, manager: int, model: dict) -> tuple[Job, ScoringModel]:
    with app.app_context():
        project, user = db.session.get(Project, project_id), db.session.get(User, manager)
        upload_model(project, json.dumps(model), user)
        db.session.commit()
        job_id = submit_scoring(project, user)  # inline under TESTING
        job = db.session.get(Job, job_id)
        row = db.session.get(ScoringModel, job.result["model_id"]) if job.result else None
        return job, row


def test_predictions_are_splinks_own_for_an_uploaded_model(app, febrl, manager, febrl_model):
    job, row = _score(app, febrl, manager, febrl_model)
    assert job.status == "done", job.error
    table = pq.read_table(row.predictions)
    assert table.schema == OUTPUT_SCHEMA
    ours = table.to_pandas()
    theirs = splink_predictions(febrl_model)
    assert len(ours) == len(theirs) == row.predicted_pairs
    key = ["unique_id_l", "unique_id_r"]
    merged = ours.merge(theirs, on=key, suffixes=("", "_splink"), validate="one_to_one")
    assert len(merged) == len(ours)  # the same candidate pairs
    assert (merged.match_key == merged.match_key_splink).all()
    assert (merged.match_weight - merged.match_weight_splink).abs().max() < 1e-9
    assert (merged.match_probability - merged.match_probability_splink).abs().max() < 1e-12
    assert set(ours.source_dataset_l) == {"A"} and set(ours.source_dataset_r) == {"B"}
    # Nothing of the working files is left, and no identifying value is in the output.
    assert os.listdir(app.config["SCORING_WORK_DIR"]) == []
    assert not {"given_name_l", "surname_r"} & set(table.column_names)


def test_in_app_blocking_makes_splinks_candidate_pairs(app, febrl, manager, febrl_model):
    """The same rules, in-app blocking against Splink on FEBRL4 (swapped names, prefixes)."""
    job, row = _score(app, febrl, manager, febrl_model)
    assert job.status == "done", job.error
    splink = pq.read_table(row.predictions, columns=["unique_id_l", "unique_id_r", "match_key"])
    splink_pairs = {
        (a, b): int(k) for a, b, k in zip(*(c.to_pylist() for c in splink.columns), strict=True)
    }
    with app.app_context():
        project = db.session.get(Project, febrl)
        rules = parse_rules(
            [r["blocking_rule"] for r in febrl_model["blocking_rules_to_generate_predictions"]],
            {a.name: a.type for a in project.identifying},
        )
        records_a, records_b = _records(project)
        external = {
            **{i: v for i, v in _external_ids(project)},
        }
        ours = {
            (external[a], external[b]): r
            for a, b, r in candidate_pairs(records_a, records_b, rules)
        }
    assert len(ours) == len(splink_pairs) > 100_000
    assert ours == splink_pairs


def _external_ids(project):
    from sqlalchemy import select

    from app.models import Record

    return db.session.execute(
        select(Record.id, Record.external_id).where(Record.project_id == project.id)
    ).all()


def test_a_failing_run_leaves_no_working_file_and_no_value_in_its_error(
    app, febrl, manager, febrl_model, monkeypatch
):
    from splink.internals.linker_components.inference import LinkerInference

    def explode(self, *args, **kwargs):
        raise ValueError("Binder Error: value 'michaela' in column a0")

    monkeypatch.setattr(LinkerInference, "predict", explode)
    job, _ = _score(app, febrl, manager, febrl_model)
    assert job.status == "failed"
    assert "michaela" not in job.error and job.error.startswith("ValueError")
    assert os.listdir(app.config["SCORING_WORK_DIR"]) == []
    assert not list(Path(app.config["SCORING_OUTPUT_DIR"]).rglob("*.parquet"))


def test_scoring_needs_a_model_and_records(app, febrl, manager):
    with app.app_context():
        project, user = db.session.get(Project, febrl), db.session.get(User, manager)
        with pytest.raises(ScoringRefused, match="upload or train a model first"):
            submit_scoring(project, user)


def test_what_a_dead_run_left_is_swept_and_a_deleted_project_takes_its_scores(
    app, febrl, manager, febrl_model
):
    work = Path(app.config["SCORING_WORK_DIR"])
    work.mkdir(parents=True, exist_ok=True)
    dead_job, dead_pid = work / "job999-project1-a", work / "pid999999-project1-b"
    live_pid = work / f"pid{os.getpid()}-project1-c"  # this very process: still alive
    for path in (dead_job, dead_pid, live_pid):
        path.mkdir()
        (path / "work.duckdb").write_bytes(b"identifying values")
    job, row = _score(app, febrl, manager, febrl_model)
    assert job.status == "done", job.error
    assert sorted(p.name for p in work.iterdir()) == [live_pid.name]
    from app.projects.lifecycle import delete_project

    with app.app_context():
        delete_project(db.session.get(Project, febrl))
        db.session.commit()
    assert not Path(row.predictions).exists()
