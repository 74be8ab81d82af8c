"""Restart safety for jobs: a job whose process died is failed with a reason, never left running.

Every job row records its ``owner`` (``host:pid`` of the process that queued or runs it) and a
``heartbeat_at`` refreshed by each progress write. :func:`reconcile_stale_jobs` (called on
start by :func:`reconcile_at_start`, and usable from a CLI or a timer) fails each queued or
running job whose owner is a process of this host that no longer exists, or that has shown
no sign of life for ``JOBS_STALE_SECONDS`` (default 900; owners on other hosts cannot be
asked). A job of the database queue (:mod:`app.jobs.queue`) is judged by its worker's
heartbeat instead, waits queued for as long as it takes, and may be queued again
(:func:`requeue`). Clean-up specific to a kind of job (e.g. an import's staged rows) registers
with :func:`on_stale` and runs in the same transaction, after the row is marked.

What a dead process leaves outside the database (a scoring run's working folder) is found by
sweepers registered with :func:`on_sweep`. :func:`housekeep` reconciles and sweeps; it runs on
start and, in a serving process, every ``JOBS_HOUSEKEEPING_SECONDS`` (default 300) on a
daemon thread (:func:`start_housekeeping`).
"""

from __future__ import annotations

import datetime as dt
import logging
import os
import socket
import threading
from collections.abc import Callable

from flask import Flask
from sqlalchemy import select, update
from sqlalchemy.exc import SQLAlchemyError
from sqlalchemy.orm import defer

from app.extensions import db
from app.models import Job
from app.models.base import utcnow

log = logging.getLogger(__name__)

STALE_SECONDS = 900
HOUSEKEEPING_SECONDS = 300
WORKER_STALE_SECONDS = 60  # a worker's running job beats every 10 s (JOBS_HEARTBEAT_SECONDS)
StaleHook = Callable[[Job, str], None]
_hooks: dict[str, list[StaleHook]] = {}
_sweepers: list[Callable[[], int]] = []


def owner_id() -> str:
    """``host:pid`` of this process."""
    return f"{socket.gethostname()}:{os.getpid()}"


def on_stale(kind: str = "*") -> Callable[[StaleHook], StaleHook]:
    """Register ``hook(job, reason)`` for stale jobs of ``kind`` (``"*"``: every kind)."""

    def register(hook: StaleHook) -> StaleHook:
        _hooks.setdefault(kind, []).append(hook)
        return hook

    return register


def on_sweep(sweeper: Callable[[], int]) -> Callable[[], int]:
    """Register ``sweeper()`` (run in an app context; returns how many things it removed)."""
    _sweepers.append(sweeper)
    return sweeper


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # someone else's process: it exists
        return True
    return True


def _aware(moment: dt.datetime | None) -> dt.datetime | None:
    # SQLite hands back naive datetimes; they were written in UTC
    if moment is not None and moment.tzinfo is None:
        return moment.replace(tzinfo=dt.UTC)
    return moment


def stale_reason(
    job: Job, *, now: dt.datetime, stale_after: float, worker_stale_after: float | None = None
) -> str | None:
    """Why ``job`` (queued or running) can no longer finish, or None if it may.

    A queued job of the database queue (it has a ``target``) belongs to no process: it waits
    for a worker however long that takes. A running one beats its heart every
    ``JOBS_HEARTBEAT_SECONDS``, so it is judged after ``worker_stale_after`` (default
    ``stale_after``).
    """
    if job.target is not None and job.status == "queued":
        return None
    host, _, pid = (job.owner or "").rpartition(":")
    if host == socket.gethostname() and pid.isdigit() and not _alive(int(pid)):
        verb = "running" if job.status == "running" else "queueing"
        return f"the process {job.owner} {verb} it is gone (the server restarted or crashed)"
    if job.target is not None and worker_stale_after is not None:
        stale_after = worker_stale_after
    last = _aware(job.heartbeat_at) or _aware(job.updated_at) or _aware(job.created_at)
    if last is not None and (now - last).total_seconds() > stale_after:
        return f"no sign of life for over {stale_after:g} s: its process presumably died"
    return None


def reconcile_stale_jobs(stale_after: float | None = None) -> list[int]:
    """Stop every queued or running job that cannot finish; return their ids (then commit).

    A stopped job of the database queue whose attempts are below its ``max_attempts`` (a
    pure job, whose arguments are all in its row) is queued again for another worker; any
    other one fails with the reason.
    """
    from flask import current_app

    config = current_app.config
    if stale_after is None:
        stale_after = float(config.get("JOBS_STALE_SECONDS", STALE_SECONDS))
    worker_stale = float(config.get("JOBS_WORKER_STALE_SECONDS", WORKER_STALE_SECONDS))
    now, stopped = utcnow(), []
    active = select(Job).where(Job.status.in_(("queued", "running"))).order_by(Job.id)
    jobs = db.session.scalars(active.options(defer(Job.payload), defer(Job.result))).all()
    for job in jobs:
        reason = stale_reason(
            job, now=now, stale_after=stale_after, worker_stale_after=worker_stale
        )
        if reason is not None and (requeue(job, reason) or fail_stopped(job, reason)):
            stopped.append(job.id)
    db.session.commit()
    return stopped


def requeue(job: Job, reason: str) -> bool:
    """Queue ``job`` again if it may run once more (see :func:`reconcile_stale_jobs`) and is
    still as it was read, after its kind's clean-up hooks; whether it was. The caller commits."""
    if job.target is None or job.status != "running" or job.attempts >= job.max_attempts:
        return False
    note = f"attempt {job.attempts} of {job.max_attempts} stopped: {reason}; queued again"
    marked = db.session.execute(
        update(Job)
        .where(Job.id == job.id, Job.status == "running", Job.owner == job.owner)
        .values(status="queued", owner=None, error=note)
    ).rowcount
    if marked:
        _run_hooks(job, reason)
        log.warning("job %s (%s) queued again: %s", job.id, job.kind, reason)
    return bool(marked)


def fail_stopped(job: Job, reason: str) -> bool:
    """Mark ``job`` failed (``stopped: reason``) if it is still in the status it was read in,
    and run its kind's clean-up hooks; whether it was marked. The caller commits."""
    marked = db.session.execute(
        update(Job)
        .where(Job.id == job.id, Job.status == job.status)
        .values(status="failed", error=f"stopped: {reason}", payload=None)
    ).rowcount
    if marked:
        _run_hooks(job, reason)
        log.warning("job %s (%s) marked failed: %s", job.id, job.kind, reason)
    return bool(marked)


def _run_hooks(job: Job, reason: str) -> None:
    for hook in (*_hooks.get(job.kind, ()), *_hooks.get("*", ())):
        hook(job, reason)


def housekeep() -> int:
    """Fail the stale jobs, then run every sweeper; how many things the sweepers removed."""
    reconcile_stale_jobs()
    removed = sum(sweeper() for sweeper in _sweepers)
    db.session.commit()
    return removed


def reconcile_at_start(app: Flask) -> None:
    """Housekeep once when the app starts; a database without the jobs table is skipped."""
    with app.app_context():
        try:
            housekeep()
        except SQLAlchemyError as exc:  # e.g. not migrated yet: nothing can be stale
            db.session.rollback()
            log.info("job reconciliation skipped: %s", type(exc).__name__)
        finally:
            db.session.remove()


def start_housekeeping(app: Flask, every: float | None = None) -> threading.Event:
    """Housekeep every ``every`` seconds on a daemon thread; set the returned event to stop."""
    every = float(every or app.config.get("JOBS_HOUSEKEEPING_SECONDS") or HOUSEKEEPING_SECONDS)
    stop = threading.Event()

    def loop() -> None:
        while not stop.wait(every):
            with app.app_context():
                try:
                    housekeep()
                except Exception as exc:  # noqa: BLE001 (the next round tries again)
                    db.session.rollback()
                    log.warning("job housekeeping failed: %s", type(exc).__name__)
                finally:
                    db.session.remove()

    threading.Thread(target=loop, name="job-housekeeping", daemon=True).start()
    return stop
