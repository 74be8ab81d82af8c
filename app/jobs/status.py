"""What a job is doing now, or why it still waits, in words for its page.

A job's ``progress`` counts steps; :func:`report_step` also writes what the current step is
(``Job.step``: "estimating u by random sampling of 1,000,000 pairs"), so a long step is not a
number that stands still. :func:`waiting_reason` says why a queued job has not started:
other jobs ahead of it, its job process still starting (a spawned process loads the
application, and a scoring job Splink, before it marks the job running), or no
``flask jobs worker`` claiming the database queue. Never a value of a record.
"""

from __future__ import annotations

import datetime as dt

from flask import current_app
from sqlalchemy import func, select, update

from app.extensions import db
from app.jobs.pools import PROCESSES, executor_name
from app.models import Job
from app.models.base import utcnow

__all__ = ["report_step", "waiting_reason"]

_MAX_STEP = 200
#: A queued job of the database queue no worker has claimed for this long: is one running?
UNCLAIMED_SECONDS = 10


def report_step(progress, text: str) -> None:
    """Write ``text`` as the job's current step when ``progress`` is a job's (a cancelled job
    stops here); outside a job (the command line, tests) nothing."""
    job_id = getattr(progress, "job_id", None)
    if job_id is None:
        return
    progress.check()
    db.session.execute(
        update(Job).where(Job.id == job_id).values(step=text[:_MAX_STEP], heartbeat_at=utcnow())
    )
    db.session.commit()


def waiting_reason(job: Job) -> str | None:
    """Why ``job`` (queued) has not started; None once it has."""
    if job.status != "queued":
        return None
    ahead = db.session.scalar(
        select(func.count(Job.id)).where(Job.status.in_(("queued", "running")), Job.id < job.id)
    )
    running = db.session.scalar(select(func.count(Job.id)).where(Job.status == "running"))
    config = current_app.config
    name = executor_name(current_app)
    before = f"{ahead:,} job{'s' if ahead != 1 else ''} ahead of it ({running:,} running)"
    if name == "queue":
        if ahead:
            return f"waiting in the queue: {before}"
        if _age(job) > UNCLAIMED_SECONDS:
            return (
                "no job worker has claimed it: is one running (.venv/bin/flask --app app "
                "jobs worker)?"
            )
        return "waiting for a job worker to claim it"
    slots = int(config.get("JOBS_PROCESSES", PROCESSES)) if name == "process" else 2
    if running >= slots or ahead >= slots:
        return f"waiting for a free job {'process' if name == 'process' else 'thread'}: {before}"
    if name == "process":
        return (
            "its job process is starting: it loads the application (and, to score or "
            "train, Splink) before the job begins; the first job after a restart waits longest"
        )
    return "starting"


def _age(job: Job) -> float:
    created = job.created_at
    if created.tzinfo is None:  # SQLite gives naive UTC
        created = created.replace(tzinfo=dt.UTC)
    return (utcnow() - created).total_seconds()
