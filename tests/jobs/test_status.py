"""What a job is doing now, or why it waits: the words its page shows."""

from __future__ import annotations

import pytest

from app.extensions import db
from app.jobs.status import report_step, waiting_reason
from app.models import Job
from tests.analytics.conftest import login


def _job(status: str = "queued", **values) -> Job:
    job = Job(kind="test", status=status, **values)
    db.session.add(job)
    db.session.commit()
    return job


@pytest.mark.parametrize(
    ("executor", "ahead", "running", "words"),
    [
        ("process", 0, 0, "its job process is starting"),
        ("process", 2, 2, "waiting for a free job process: 2 jobs ahead of it (2 running)"),
        ("process", 3, 1, "waiting for a free job process: 3 jobs ahead of it (1 running)"),
        ("thread", 2, 2, "waiting for a free job thread"),
        ("queue", 1, 1, "waiting in the queue: 1 job ahead of it (1 running)"),
        ("queue", 0, 0, "waiting for a job worker to claim it"),
    ],
)
def test_a_queued_job_says_why_it_waits(app, executor, ahead, running, words):
    app.config["JOBS_EXECUTOR"] = executor
    with app.app_context():
        for i in range(ahead):
            _job("running" if i < running else "queued")
        _job("done")
        job = _job()
        assert words in waiting_reason(job)
        job.status = "running"
        assert waiting_reason(job) is None


def test_a_queue_no_worker_claims_asks_whether_one_runs(app):
    app.config["JOBS_EXECUTOR"] = "queue"
    with app.app_context():
        from app.models.base import utcnow

        job = _job(created_at=utcnow().replace(year=2020))
        assert "is one running (.venv/bin/flask --app app jobs worker)?" in waiting_reason(job)


def test_a_step_is_written_only_for_a_job(app):
    class Context:
        job_id: int

        def check(self):
            pass

    with app.app_context():
        job = _job("running")
        context = Context()
        context.job_id = job.id
        report_step(context, "estimating u by random sampling of 1,000 pairs")
        report_step(lambda done, total: None, "outside a job: nothing")
        db.session.expire_all()
        assert db.session.get(Job, job.id).step == "estimating u by random sampling of 1,000 pairs"


def test_the_job_page_shows_the_wait_and_the_step(app, client, people):
    app.config["JOBS_EXECUTOR"] = "process"
    with app.app_context():
        queued = _job().id
        running = _job("running", step="estimating m by EM, session 1 of 2", progress_total=5).id
    login(client, "ada")
    page = client.get(f"/admin/jobs/{queued}").get_data(as_text=True)
    assert 'id="job-waiting"' in page and "its job process is starting" in page
    page = client.get(f"/admin/jobs/{running}").get_data(as_text=True)
    assert "Now: estimating m by EM, session 1 of 2." in page
