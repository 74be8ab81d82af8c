"""A model trained inside the application (menu, λ, u by sampling, m by EM), as a job."""

from __future__ import annotations

import os

import pyarrow.parquet as pq
import pytest

from app.extensions import db
from app.models import Job, Project, ScoringModel, User
from app.projects.scoring import ScoringRefused, Training, load_model, submit_training
from app.projects.scoring.charts import match_weights_chart, prior_weight

pytestmark = pytest.mark.slow

TRAINING = Training(
    comparisons={
        "given_name": ("name", False), "surname": ("name", True),
        "date_of_birth": ("date_of_birth", False), "suburb": ("exact", True),
        "postcode": ("levenshtein", False),
    },
    rules=['block_on("given_name")', 'block_on("surname")',
           "l.given_name = r.surname AND l.surname = r.given_name",
           'block_on("date_of_birth")'],
    em_rules=['block_on("date_of_birth")', "substr(l.surname, 1, 2) = substr(r.surname, 1, 2)"],
    deterministic_rules=['block_on("given_name", "surname", "date_of_birth")'],
    recall=0.8, u_pairs=300_000, seed=1,
)  # fmt: skip


def test_a_model_trained_in_the_app_links_febrl4(app, febrl, manager):
    with app.app_context():
        project, user = db.session.get(Project, febrl), db.session.get(User, manager)
        job = db.session.get(Job, submit_training(project, TRAINING, user, then_score=True))
        assert job.status == "done", job.error
        assert job.progress_done == job.progress_total > 3
        row = db.session.get(ScoringModel, job.result["model_id"])
        assert row.origin == "trained" and row.training["em_rules"] == TRAINING.em_rules
        model = load_model(project, row)
        levels = [lv for c in model.comparisons for lv in c.levels if not lv.is_null]
        assert all(isinstance(lv.u, float) for lv in levels)
        assert sum(isinstance(lv.m, float) for lv in levels) >= len(levels) - 2
        assert 0 < model.probability < 0.01 and prior_weight(model) < 0
        chart = match_weights_chart(model)
        assert chart["labels"][0] == "prior (λ)" and len(chart["labels"]) == len(levels) + 1
        predictions = pq.read_table(row.predictions).to_pandas()
    truth = predictions.unique_id_l.str.removesuffix("-org") == predictions.unique_id_r.str.replace(
        r"-dup-\d+$", "", regex=True
    )
    linked = predictions.match_probability > 0.5
    assert (truth & linked).sum() / linked.sum() > 0.99  # precision
    assert (truth & linked).sum() / 5000 > 0.95  # recall of the 5,000 true matches
    assert os.listdir(app.config["SCORING_WORK_DIR"]) == []


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"comparisons": {"surname": ("date_of_birth", False)}}, "choose one of name"),
        ({"comparisons": {"ssn": ("exact", False)}}, "not an identifying attribute"),
        ({"em_rules": ["l.surname = r.surname OR l.dob = r.dob"]}, "EM rules: rule 1"),
        ({"rules": []}, "prediction rules: blocking rules must be a non-empty list"),
        ({"u_pairs": 10**12}, "pairs sampled for u"),
        ({"recall": 0}, "recall"),
        ({"em_rules": []}, "give at least one EM blocking rule"),
    ],
)
def test_training_choices_are_checked_before_any_job(app, febrl, manager, change, message):
    import dataclasses

    with app.app_context():
        project, user = db.session.get(Project, febrl), db.session.get(User, manager)
        with pytest.raises(ScoringRefused) as caught:
            submit_training(
                project, dataclasses.replace(TRAINING, **change), user, then_score=False
            )
        assert any(message in p for p in caught.value.problems), caught.value.problems
        assert db.session.query(Job).count() == 0
