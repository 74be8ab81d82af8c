"""Restart safety and cancel: no job stays running after its process died; cancel stops chunks."""

from __future__ import annotations

import datetime as dt
import logging
import socket
import subprocess
import sys

import pytest
import sqlalchemy as sa

from app import create_app
from app.extensions import db
from app.jobs import executor as jobs
from app.jobs.recovery import _hooks, on_stale, owner_id, reconcile_stale_jobs
from app.models import Job
from app.models.base import utcnow


def dead_pid() -> int:
    child = subprocess.Popen([sys.executable, "-c", "pass"])
    child.wait(timeout=30)
    return child.pid


def add_job(status="running", owner=None, heartbeat=None, kind="import") -> int:
    job = Job(kind=kind, status=status, owner=owner, heartbeat_at=heartbeat or utcnow())
    db.session.add(job)
    db.session.commit()
    return job.id


@pytest.fixture
def hook_calls():
    calls = []
    on_stale("import")(lambda job, reason: calls.append((job.id, reason)))
    yield calls
    _hooks["import"].pop()


def test_a_job_of_a_dead_process_fails_with_a_reason_and_runs_the_hooks(app, hook_calls):
    with app.app_context():
        gone = add_job(owner=f"{socket.gethostname()}:{dead_pid()}")
        queued = add_job(status="queued", owner=f"{socket.gethostname()}:{dead_pid()}")
        alive = add_job(owner=owner_id())
        assert sorted(reconcile_stale_jobs()) == sorted([gone, queued])
        db.session.expire_all()
        job = db.session.get(Job, gone)
        assert job.status == "failed" and "is gone" in job.error
        assert db.session.get(Job, alive).status == "running"
        assert [job_id for job_id, _ in hook_calls] == sorted([gone, queued])


def test_a_silent_job_elsewhere_fails_only_after_the_stale_delay(app):
    with app.app_context():
        old = add_job(owner="elsewhere:1", heartbeat=utcnow() - dt.timedelta(hours=1))
        recent = add_job(owner="elsewhere:2")
        done = add_job(
            status="done", owner="elsewhere:3", heartbeat=utcnow() - dt.timedelta(days=1)
        )
        assert reconcile_stale_jobs(stale_after=900) == [old]
        db.session.expire_all()
        assert "no sign of life" in db.session.get(Job, old).error
        assert db.session.get(Job, recent).status == "running"
        assert db.session.get(Job, done).status == "done"


def test_start_up_reconciles(app, database_config):
    with app.app_context():
        gone = add_job(owner=f"{socket.gethostname()}:{dead_pid()}")
    started = create_app({"TESTING": True, "SECRET_KEY": "t", "AUTO_UPGRADE": False,
                          "JOBS_RECONCILE_ON_START": True, **database_config})  # fmt: skip
    with started.app_context():
        for engine in db.engines.values():
            engine.dispose()  # its pooled connections would outlive the test
    with app.app_context():
        assert db.session.get(Job, gone).status == "failed"


def test_start_up_on_an_empty_database_does_not_fail(tmp_path, caplog):
    caplog.set_level(logging.INFO, logger="app.jobs.recovery")
    config = {"SQLALCHEMY_DATABASE_URI": f"sqlite:///{tmp_path / 'empty.sqlite'}",
              "VAULT_DATABASE_URI": f"sqlite:///{tmp_path / 'vault.sqlite'}"}  # fmt: skip
    app = create_app({"TESTING": True, "SECRET_KEY": "t", "AUTO_UPGRADE": False,
                      "JOBS_RECONCILE_ON_START": True, **config})  # fmt: skip
    skipped = [r.getMessage() for r in caplog.records if r.name == "app.jobs.recovery"]
    assert skipped == ["job reconciliation skipped: OperationalError"]  # no jobs table: skipped
    with app.app_context():
        assert sa.inspect(db.engine).get_table_names() == []  # and start-up created nothing
        db.session.remove()
        for engine in db.engines.values():
            engine.dispose()


def chunked(n, *, progress):
    ran = []

    def chunk(shared, k):
        ran.append(k)
        if k == 1:
            jobs.cancel(shared)  # an admin cancels while chunk 1 runs
        return k

    job_id = db.session.scalars(db.select(Job.id)).one()
    jobs.chunk_map(progress, chunk, [(k,) for k in range(n)], shared=job_id)
    return {"ran": ran}


def test_cancel_stops_the_remaining_chunks(app):
    with app.app_context():
        job_id = jobs.submit("chunks", chunked, 10)
        db.session.expire_all()
        job = db.session.get(Job, job_id)
        assert job.status == "cancelled" and job.result is None
        assert job.progress_done == 1 and job.progress_total == 10  # chunk 0 done, then stop


def test_progress_counts_chunks_and_writes_a_heartbeat(app):
    def three(*, progress):
        return {"out": jobs.chunk_map(progress, lambda s, k: s + k, [(1,), (2,), (3,)], shared=10)}

    with app.app_context():
        job_id = jobs.submit("three", three)
        db.session.expire_all()
        job = db.session.get(Job, job_id)
        assert job.result == {"out": [11, 12, 13]}
        assert (job.progress_done, job.progress_total) == (3, 3)
        assert job.owner == owner_id() and job.heartbeat_at is not None


def test_a_cancelled_queued_job_never_starts(app, monkeypatch):
    started = []
    monkeypatch.setattr(jobs, "_set", _cancel_first(jobs._set))
    with app.app_context():
        job_id = jobs.submit("never", lambda *, progress: started.append(1) or {})
        db.session.expire_all()
        assert db.session.get(Job, job_id).status == "cancelled" and not started


def _cancel_first(original):
    def wrapped(job_id, **values):
        if values.get("expect") == "queued":
            jobs.cancel(job_id)
        return original(job_id, **values)

    return wrapped
