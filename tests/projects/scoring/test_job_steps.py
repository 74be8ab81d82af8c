"""A training job says which step it is at, and the words change as it proceeds."""

from __future__ import annotations

import pytest

from app.datagen import generate
from app.extensions import db
from app.models import Job, User
from app.projects.lifecycle import create_project
from app.projects.scoring import Training, submit_training
from app.projects.scoring.runs import engine

pytestmark = pytest.mark.slow


def test_the_training_jobs_step_text_follows_its_steps(app, manager, monkeypatch):
    data = generate(400, 3)
    names = ("first_name", "last_name", "dob")
    records = [{"id": data["id"][i], **{n: data[n][i] or None for n in names}} for i in range(400)]
    spec = {
        "name": "steps", "kind": "dedupe", "records": records,
        "pairs": [[records[0]["id"], records[1]["id"]]],
        "attributes": [{"name": "first_name"}, {"name": "last_name"},
                       {"name": "dob", "type": "date"}],
    }  # fmt: skip
    training = Training(
        {"first_name": ("jaro_winkler", False), "last_name": ("exact", False),
         "dob": ("date_of_birth", False)},
        rules=['block_on("last_name")', 'block_on("dob")'],
        em_rules=['block_on("dob")', 'block_on("last_name")'],
        deterministic_rules=['block_on("first_name", "last_name")'], u_pairs=20_000, seed=1,
    )  # fmt: skip
    seen: list[tuple[str, str | None]] = []
    original = engine.report_step

    def spy(progress, text):
        original(progress, text)
        seen.append((text, db.session.get(Job, progress.job_id).step))  # what the page reads

    monkeypatch.setattr(engine, "report_step", spy)
    with app.app_context():
        project = create_project(spec, db.session.get(User, manager))
        db.session.commit()
        job_id = submit_training(project, training, db.session.get(User, manager), then_score=True)
        job = db.session.get(Job, job_id)
        assert job.status == "done", job.error
    texts = [text for text, _ in seen]
    assert all(text == stored for text, stored in seen)  # each written to the job's row
    expected = [
        "reading the records into duckdb", "starting Splink on the records",
        "estimating λ (the probability that two random records match) from 1 deterministic "
        "rule(s) at recall 0.7", "estimating u by random sampling of 20,000 pairs",
        "estimating m by EM, session 1 of 2 (blocked on l.dob = r.dob)",
        "estimating m by EM, session 2 of 2 (blocked on l.last_name = r.last_name)",
        "estimating the candidate pairs and their work",
        "predicting: scoring the candidate pairs of 2 blocking rule(s)",
        "writing the predictions",
    ]  # fmt: skip
    assert texts == expected
