"""The database queue (``JOBS_EXECUTOR=queue``) and ``flask jobs worker``: claims, retries,
web restarts and a SIGKILLed worker, on both engines."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path
from urllib.parse import quote

import pytest
import sqlalchemy as sa

from app import create_app
from app.extensions import db
from app.jobs import executor as jobs
from app.jobs import queue
from app.jobs.recovery import owner_id, reconcile_stale_jobs
from app.jobs.worker import Worker
from app.models import Job
from tests.jobs.test_recovery import dead_pid

ROOT = Path(__file__).resolve().parents[2]
WAIT = 120  # seconds: a bound for a loaded machine (a worker builds an app), not a speed


def counting(n: int, *, progress) -> dict:
    progress(n, n)
    return {"counted": n}


def waiting(gate: str, *, progress) -> dict:
    progress(0, 1)
    while not os.path.exists(gate):
        time.sleep(0.02)
    return {"by": owner_id()}


def waiting_pure(gate: str, *, progress) -> dict:
    return waiting(gate, progress=progress)


waiting_pure.job_attempts = 2  # its inputs are its arguments: it may run again


@pytest.fixture
def queued(app):
    app.config["JOBS_EXECUTOR"] = "queue"
    return app


def _row(app, job_id: int) -> Job:
    with app.app_context():
        job = db.session.get(Job, job_id)
        db.session.expunge(job)
        db.session.remove()
        return job


def _until(app, check, what: str):
    deadline = time.monotonic() + WAIT
    while time.monotonic() < deadline:
        value = check()
        if value:
            return value
        time.sleep(0.05)
    raise AssertionError(f"still not {what}")


def test_a_queued_job_waits_in_its_row_and_a_worker_runs_it(queued, people):
    with queued.test_request_context():
        job_id = jobs.submit("count", counting, 3, created_by=people["ada"])
    job = _row(queued, job_id)
    assert (job.status, job.owner, job.target) == ("queued", None, f"{__name__}:counting")
    assert queue.decode(job.payload) == (3,)
    assert Worker(queued, until_empty=True).run() == 1
    job = _row(queued, job_id)
    assert (job.status, job.result, job.attempts, job.payload) == ("done", {"counted": 3}, 1, None)


@pytest.mark.parametrize(
    "fn, args, why",
    [
        (lambda *, progress: {}, (), "module-level function"),
        (counting, (object(),), "plain values only"),
    ],
)
def test_what_a_worker_could_not_run_is_refused_at_submission(queued, fn, args, why):
    with queued.app_context():
        with pytest.raises(ValueError, match=why):
            jobs.submit("bad", fn, *args)
        assert db.session.scalar(sa.select(sa.func.count()).select_from(Job)) == 0


def test_two_workers_claiming_at_once_never_take_the_same_job(queued):
    with queued.app_context():
        ids = {jobs.submit("count", counting, k) for k in range(12)}
    taken: list[int] = []

    def claim_all(owner: str) -> None:
        with queued.app_context():
            while (job := queue.claim(owner)) is not None:
                taken.append(job.id)
            db.session.remove()

    threads = [threading.Thread(target=claim_all, args=(f"w{k}:1",)) for k in range(2)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=WAIT)
    assert sorted(taken) == sorted(ids)


def test_a_stopped_queued_job_runs_again_while_it_may_and_fails_after(queued):
    gone = f"{socket.gethostname()}:{dead_pid()}"
    with queued.app_context():
        pure = jobs.submit("pure", waiting_pure, "never")
        once = jobs.submit("once", waiting, "never")
        db.session.execute(sa.update(Job).values(status="running", owner=gone, attempts=1))
        db.session.commit()
        assert sorted(reconcile_stale_jobs()) == [pure, once]
    again, failed = _row(queued, pure), _row(queued, once)
    assert (again.status, again.owner) == ("queued", None)
    assert again.error.startswith("attempt 1 of 2 stopped: the process") and again.payload
    assert failed.status == "failed" and "is gone" in failed.error and failed.payload is None


def _worker_env(database_config) -> dict:
    urls = {
        "DATABASE_URL": database_config["SQLALCHEMY_DATABASE_URI"],
        "VAULT_DATABASE_URL": database_config["VAULT_DATABASE_URI"],
    }
    options = database_config.get("SQLALCHEMY_ENGINE_OPTIONS", {}).get("connect_args", {})
    if "options" in options:  # PostgreSQL: the test's schema
        urls = {k: f"{v}?options={quote(options['options'])}" for k, v in urls.items()}
    return {
        **os.environ,
        **urls,
        "SECRET_KEY": "test-only",
        "FLASK_AUTO_UPGRADE": "false",
        "FLASK_JOBS_POLL_SECONDS": "0.05",
        "FLASK_JOBS_HEARTBEAT_SECONDS": "0.1",
        "FLASK_JOBS_RECONCILE_SECONDS": "0.2",
    }


def _restart_web(database_config) -> None:
    """A web process starting (its reconciliation on start), then gone."""
    web = create_app({"TESTING": True, "SECRET_KEY": "test-only", "AUTO_UPGRADE": False,
                      "JOBS_RECONCILE_ON_START": True, **database_config})  # fmt: skip
    with web.app_context():
        for engine in db.engines.values():
            engine.dispose()


@pytest.mark.slow
def test_two_workers_a_sigkill_and_web_restarts_lose_no_job(queued, database_config, tmp_path):
    gate, env = tmp_path / "gate", _worker_env(database_config)
    with queued.app_context():
        pure = jobs.submit("pure", waiting_pure, str(gate))
        once = jobs.submit("once", waiting, str(gate))
    command = [sys.executable, "-m", "flask", "--app", "app", "jobs", "worker"]
    workers = [
        subprocess.Popen(command, cwd=ROOT, env=env, stderr=subprocess.DEVNULL) for _ in range(2)
    ]
    try:
        _until(
            queued,
            lambda: {_row(queued, j).status for j in (pure, once)} == {"running"},
            "both running",
        )
        with queued.app_context():
            later = jobs.submit("count", counting, 3)
        _restart_web(database_config)  # neither the running jobs nor the queued one are touched
        assert [_row(queued, j).status for j in (pure, once, later)] == [
            "running",
            "running",
            "queued",
        ]

        pid = int(_row(queued, pure).owner.rpartition(":")[2])
        killed = next(w for w in workers if w.pid == pid)
        survivor = next(w for w in workers if w.pid != pid)
        killed.kill()
        killed.wait(timeout=WAIT)
        # the survivor, busy with `once`, notices on its heartbeat thread and queues it again
        again = _until(
            queued, lambda: (r := _row(queued, pure)).status == "queued" and r, "requeued"
        )
        assert "attempt 1 of 2 stopped" in again.error
        gate.touch()
        _until(
            queued,
            lambda: all(_row(queued, j).status == "done" for j in (pure, once, later)),
            "done",
        )
        done = _row(queued, pure)
        assert (done.attempts, done.error, done.payload) == (2, None, None)
        assert done.result == {"by": f"{socket.gethostname()}:{survivor.pid}"}

        # a job that may not run twice, killed with its worker: failed with the reason
        with queued.app_context():
            last = jobs.submit("once", waiting, str(tmp_path / "never"))
        _until(queued, lambda: _row(queued, last).status == "running", "running")
        survivor.kill()
        survivor.wait(timeout=WAIT)
        _restart_web(database_config)
        failed = _row(queued, last)
        assert failed.status == "failed" and f":{survivor.pid} running it is gone" in failed.error
    finally:
        for worker in workers:
            worker.kill()
            worker.wait(timeout=WAIT)
