"""``flask jobs worker``: a process that runs the jobs of the database queue, one at a time.

Start any number, on any machine that reaches the database (and, for jobs that read staged
files, the same ``instance/`` folder). Each worker loops: claim the oldest queued job
(:func:`app.jobs.queue.claim`), run it as every executor does (progress, result, error and
cancel on its row), claim the next; with nothing queued it waits ``JOBS_POLL_SECONDS``.
A thread beats the running job's heart every ``JOBS_HEARTBEAT_SECONDS`` and, every
``JOBS_RECONCILE_SECONDS``, reconciles (:func:`app.jobs.recovery.reconcile_stale_jobs`): a
job whose worker was killed is queued again or failed with the reason, by whichever worker
looks first. SIGTERM or SIGINT lets the running job finish, then the worker exits.
"""

from __future__ import annotations

import logging
import signal
import threading
import time

from flask import Flask
from sqlalchemy import update
from sqlalchemy.exc import SQLAlchemyError

from app.extensions import db
from app.jobs import queue
from app.jobs.executor import _run_in_app
from app.jobs.failures import describe_failure, log_failure
from app.jobs.pools import dask_address, get_executor
from app.jobs.recovery import housekeep, owner_id
from app.models import Job
from app.models.base import utcnow

log = logging.getLogger(__name__)

DEFAULTS = {
    "JOBS_POLL_SECONDS": 1.0,
    "JOBS_HEARTBEAT_SECONDS": 10.0,
    "JOBS_RECONCILE_SECONDS": 30.0,
}


class Worker:
    """Claims and runs queued jobs until stopped (or, with ``until_empty``, none is queued)."""

    def __init__(self, app: Flask, *, until_empty: bool = False, max_jobs: int | None = None):
        self.app, self.until_empty, self.max_jobs = app, until_empty, max_jobs
        self.settings = {k: float(app.config.get(k, v)) for k, v in DEFAULTS.items()}
        self.stopping = threading.Event()
        self.running: int | None = None  # the job id being run
        self.ran = 0

    def stop(self, *_signal) -> None:
        self.stopping.set()

    def run(self) -> int:
        """Work until stopped; the number of jobs run."""
        if threading.current_thread() is threading.main_thread():
            signal.signal(signal.SIGTERM, self.stop)
            signal.signal(signal.SIGINT, self.stop)
        beat = threading.Thread(target=self._beat, name="jobs-heartbeat", daemon=True)
        beat.start()
        log.info("jobs worker %s started", owner_id())
        try:
            while not self.stopping.is_set():
                if self.max_jobs is not None and self.ran >= self.max_jobs:
                    break
                if self._run_one():
                    continue
                if self.until_empty:
                    break
                self.stopping.wait(self.settings["JOBS_POLL_SECONDS"])
        finally:
            self.stopping.set()
            beat.join(timeout=5)
        log.info("jobs worker %s stopped after %s job(s)", owner_id(), self.ran)
        return self.ran

    def _run_one(self) -> bool:
        with self.app.app_context():
            try:
                job = queue.claim(owner_id())
            finally:
                db.session.remove()
        if job is None:
            return False
        self.running, self.ran = job.id, self.ran + 1
        try:
            fn, args = queue.resolve(job.target), queue.decode(job.payload or b"")
        except Exception as exc:  # noqa: BLE001 (a row no worker can run fails, with why)
            log_failure(log, f"job {job.id}", exc)
            self._fail(job.id, f"cannot run {job.target}: {describe_failure(exc)}")
        else:
            address = dask_address(self.app)
            chunks = get_executor("dask", address) if address else get_executor("chunks")
            _run_in_app(self.app, job.id, fn, args, chunks, claimed=True)
        finally:
            self.running = None
        return True

    def _fail(self, job_id: int, error: str) -> None:
        with self.app.app_context():
            db.session.execute(
                update(Job)
                .where(Job.id == job_id, Job.status == "running", Job.owner == owner_id())
                .values(status="failed", error=error, payload=None)
            )
            db.session.commit()
            db.session.remove()

    def _beat(self) -> None:
        last_reconcile = 0.0
        every = min(
            self.settings["JOBS_HEARTBEAT_SECONDS"], self.settings["JOBS_RECONCILE_SECONDS"]
        )
        while not self.stopping.wait(every):
            with self.app.app_context():
                try:
                    if self.running is not None:
                        self._heartbeat(self.running)
                    if time.monotonic() - last_reconcile >= self.settings["JOBS_RECONCILE_SECONDS"]:
                        last_reconcile = time.monotonic()
                        housekeep()
                except SQLAlchemyError as exc:  # the database away for a moment: next beat
                    db.session.rollback()
                    log.warning("jobs worker heartbeat: %s", describe_failure(exc))
                finally:
                    db.session.remove()

    def _heartbeat(self, job_id: int) -> None:
        db.session.execute(
            update(Job)
            .where(Job.id == job_id, Job.status == "running", Job.owner == owner_id())
            .values(heartbeat_at=utcnow())
        )
        db.session.commit()
