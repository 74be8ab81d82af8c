"""The executor seam: a Job row records status, progress, result and error."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor

import pytest

from app.extensions import db
from app.jobs import executor as jobs
from app.models import Job


def counting(n: int, *, progress) -> dict:
    for k in range(1, n + 1):
        progress(k, n)
    return {"counted": n}


def failing(*, progress) -> dict:
    progress(1, 4)
    raise RuntimeError("the input broke the job")


def seen_progress(seen: list, *, progress) -> dict:
    progress(2, 5)
    job = db.session.scalars(db.select(Job)).one()  # the job's own session sees its writes
    seen.append((job.status, job.progress_done, job.progress_total))
    return {}


def test_inline_is_the_default_under_testing(app):
    assert jobs.executor_name(app) == "inline"


def test_inline_job_runs_and_records_result_and_progress(app, people):
    with app.test_request_context():
        job_id = jobs.submit("count", counting, 3, created_by=people["ada"])
        db.session.expire_all()
        job = db.session.get(Job, job_id)
        assert (job.kind, job.status, job.error) == ("count", "done", None)
        assert job.result == {"counted": 3}
        assert (job.progress_done, job.progress_total, job.created_by) == (3, 3, people["ada"])


def test_progress_is_written_while_running(app):
    seen = []
    with app.app_context():
        jobs.submit("peek", seen_progress, seen)
    assert seen == [("running", 2, 5)]


def test_failure_is_recorded_with_its_error(app):
    with app.app_context():
        job_id = jobs.submit("fail", failing)
        db.session.expire_all()
        job = db.session.get(Job, job_id)
        assert job.status == "failed"
        assert job.error == "RuntimeError: the input broke the job"
        assert job.result is None and job.progress_done == 1


def test_unserialisable_result_fails_the_job_not_the_request(app):
    with app.app_context():
        job_id = jobs.submit("bad", lambda *, progress: {"x": object()})
        db.session.expire_all()
        job = db.session.get(Job, job_id)
        assert job.status == "failed" and "object" in job.error


def test_thread_executor_runs_in_the_background(app, monkeypatch):
    pool = ThreadPoolExecutor(max_workers=1)
    monkeypatch.setitem(jobs._pools, "thread", pool)
    app.config["JOBS_EXECUTOR"] = "thread"
    with app.app_context():
        job_id = jobs.submit("count", counting, 4)
    pool.shutdown(wait=True)
    with app.app_context():
        job = db.session.get(Job, job_id)
        assert (job.status, job.result, job.progress_done) == ("done", {"counted": 4}, 4)


def test_unknown_executor_is_refused(app):
    app.config["JOBS_EXECUTOR"] = "dask?"
    with pytest.raises(ValueError, match="JOBS_EXECUTOR"):
        jobs.executor_name(app)
