"""A process pool whose process was killed is rebuilt: no later job fails, none stays queued."""

from __future__ import annotations

import os
import signal
import time

import pytest

from app.extensions import db
from app.jobs import executor as jobs
from app.jobs import pools
from app.models import Job

WAIT = 120  # seconds: a bound for a loaded machine (a pool process builds an app), not a speed


def sleeping(*, progress) -> dict:
    progress(0, 1)
    time.sleep(WAIT)
    return {}


def counting(n: int, *, progress) -> dict:
    progress(n, n)
    return {"counted": n}


def _row(app, job_id: int) -> Job:
    with app.app_context():
        job = db.session.get(Job, job_id)
        db.session.expunge(job)
        db.session.remove()
        return job


def _until(app, job_id: int, *statuses: str) -> Job:
    deadline = time.monotonic() + WAIT
    while time.monotonic() < deadline:
        job = _row(app, job_id)
        if job.status in statuses:
            return job
        time.sleep(0.05)
    raise AssertionError(f"job {job_id} still {job.status}, not {statuses}")


@pytest.fixture
def pooled(app):
    app.config.update(JOBS_EXECUTOR="process", JOBS_PROCESSES=1)
    yield app
    pool = pools._pools.pop("process", None)
    if pool is not None:
        pool.shutdown(wait=True, cancel_futures=True)


def test_a_killed_pool_process_fails_its_job_requeues_the_next_and_serves_later_ones(pooled):
    with pooled.app_context():
        running = jobs.submit("sleep", sleeping)
    owner = _until(pooled, running, "running").owner
    with pooled.app_context():
        waiting = jobs.submit("count", counting, 5)  # behind it in the one-process pool
    broken = pools._pools["process"]
    os.kill(int(owner.rpartition(":")[2]), signal.SIGKILL)

    killed = _until(pooled, running, "failed", "done")
    assert killed.status == "failed" and "pool process died" in killed.error
    requeued = _until(pooled, waiting, "done", "failed")
    assert (requeued.status, requeued.result) == ("done", {"counted": 5})
    with pooled.app_context():
        later = jobs.submit("count", counting, 3)
    done = _until(pooled, later, "done", "failed")
    assert (done.status, done.result) == ("done", {"counted": 3})
    assert pools._pools["process"] is not broken


def test_a_job_no_executor_takes_is_failed_with_the_reason_not_left_queued(app, monkeypatch):
    class ShutDown:
        def submit(self, *args, **kwargs):
            raise RuntimeError("cannot schedule new futures after shutdown")

    app.config["JOBS_EXECUTOR"] = "thread"
    monkeypatch.setattr(jobs, "get_executor", lambda name, *args, **kwargs: ShutDown())
    with app.app_context():
        job_id = jobs.submit("count", counting, 1)
    job = _row(app, job_id)
    assert job.status == "failed" and job.error.startswith("not started: RuntimeError")
