"""A Splink model trained outside the application, on the team's own files, scored as Splink
scores it: FEBRL4's dates are ``YYYYMMDD`` text, and the model reads them so."""

from __future__ import annotations

import json

import pandas as pd
import pyarrow.parquet as pq
import pytest

from app.extensions import db
from app.models import Job, Project, ScoringModel, User
from app.projects.lifecycle import create_project
from app.projects.scoring import submit_scoring, upload_model
from tests.febrl import project_spec

pytestmark = pytest.mark.slow


def test_an_outside_model_on_yyyymmdd_dates_scores_as_splinks_own_predict(
    app, manager, febrl_splink
):
    model = febrl_splink.model
    assert "'%Y%m%d'" in json.dumps(model)  # try_strptime(date_of_birth_l, '%Y%m%d')
    with app.app_context():
        user = db.session.get(User, manager)
        project = create_project(project_spec(febrl_splink, compared=True), user)
        row = upload_model(project, json.dumps(model), user)
        assert any("date_of_birth: given to Splink as YYYYMMDD" in n for n in row.notes)
        db.session.commit()
        job = db.session.get(Job, submit_scoring(db.session.get(Project, project.id), user))
        assert job.status == "done", job.error
        predictions = db.session.get(ScoringModel, job.result["model_id"]).predictions
    ours = pq.read_table(predictions).to_pandas()
    theirs = pd.read_parquet(
        febrl_splink.parquet,
        columns=["unique_id_l", "unique_id_r", "match_weight", "match_probability", "match_key"],
    )
    merged = ours.merge(
        theirs, on=["unique_id_l", "unique_id_r"], suffixes=("", "_splink"), validate="1:1"
    )
    assert len(merged) == len(ours) == len(theirs) > 150_000  # the same candidate pairs
    assert (merged.match_weight - merged.match_weight_splink).abs().max() < 1e-9
    assert (merged.match_probability - merged.match_probability_splink).abs().max() < 1e-12
    assert (merged.match_key == merged.match_key_splink).all()
