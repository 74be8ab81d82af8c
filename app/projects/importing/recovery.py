"""Remove imports nobody can finish: the project, its vault rows, its staged upload.

An import marks its project ``importing`` (with ``host:pid``, the staged upload's token and
its job, if any) until it is published; such a project is listed nowhere. While rows arrive
``import_owner`` names the writer; a job import commits batch by batch, so a process killed
part-way leaves one behind. Once written, the project waits for its manager's confirmation
(``import_owner`` cleared, see :mod:`app.projects.importing.pending.waiting`). On start, on every
new upload (and from ``flask`` or a timer) :func:`reconcile_imports` removes every importing
project being written whose process is gone, whose job has ended, or that has made no
progress for ``IMPORT_STALE_SECONDS``, and every waiting one whose staged upload is gone or
older than ``UPLOAD_MAX_AGE_SECONDS``; it deletes their staged files and marks a job failed
with the reason. A waiting project whose upload is still there is kept.

When :func:`app.jobs.recovery.reconcile_stale_jobs` fails a stale ``import`` job,
:func:`remove_import_of` (registered with ``on_stale``) removes its half project in the same
transaction; imports without a job are found here by their project's state.
"""

from __future__ import annotations

import datetime as dt
import logging
import shutil
import socket

from flask import Flask, current_app
from sqlalchemy import select, update
from sqlalchemy.exc import SQLAlchemyError

from app.extensions import db
from app.jobs.recovery import _alive, _aware, on_stale
from app.jobs.recovery import owner_id as importer_id
from app.models import Job, Project, ProjectState
from app.models.base import utcnow
from app.projects.importing.uploads import _TOKEN, _root
from app.projects.lifecycle import delete_project

__all__ = ["importer_id", "reconcile_at_start", "reconcile_imports", "remove_import_of"]

log = logging.getLogger(__name__)

STALE_SECONDS = 900
_LIVE = ("queued", "running")


def abandoned(project: Project, job: Job | None, *, now: dt.datetime, stale_after: float):
    """Why nobody can finish ``project``'s import, or ``None`` if someone still may."""
    if project.import_owner is None:
        return unconfirmable(project, now=now)
    host, _, pid = (project.import_owner or "").rpartition(":")
    if host == socket.gethostname() and pid.isdigit() and not _alive(int(pid)):
        return f"the importing process {project.import_owner} is gone"
    if job is not None and job.status not in _LIVE:
        return f"its job ended ({job.status}) without finishing it"
    last = _aware(job.updated_at if job is not None else None) or _aware(project.created_at)
    if last is not None and (now - last).total_seconds() > stale_after:
        return f"no progress for over {stale_after:g} s"
    return None


def unconfirmable(project: Project, *, now: dt.datetime) -> str | None:
    """Why a project waiting for confirmation never will be, or ``None`` if it still may."""
    token = project.import_token or ""
    meta = _root() / token / "meta.json" if _TOKEN.match(token) else None
    if meta is None or not meta.is_file():
        return "its staged upload is gone"
    max_age = float(current_app.config.get("UPLOAD_MAX_AGE_SECONDS", 24 * 3600))
    if now.timestamp() - meta.stat().st_mtime > max_age:
        return "its staged upload expired"
    return None


def reconcile_imports(stale_after: float | None = None) -> list[int]:
    """Remove every abandoned import (committing each); return the removed project ids."""
    if stale_after is None:
        stale_after = float(current_app.config.get("IMPORT_STALE_SECONDS", STALE_SECONDS))
    now, removed = utcnow(), []
    query = select(Project).where(Project.state == ProjectState.IMPORTING.value)
    for project in db.session.scalars(query).all():
        job = db.session.get(Job, project.import_job_id) if project.import_job_id else None
        reason = abandoned(project, job, now=now, stale_after=stale_after)
        if reason is None:
            continue
        removed.append(project.id)
        _remove(project, job, reason)
        db.session.commit()
    return removed


@on_stale("import")
def remove_import_of(job: Job, reason: str) -> None:
    """Hook for a stale ``import`` job: remove the half project it was writing."""
    query = select(Project).where(
        Project.import_job_id == job.id,
        Project.state == ProjectState.IMPORTING.value,
        Project.import_owner.is_not(None),  # one written whole waits for its manager
    )
    for project in db.session.scalars(query).all():
        _remove(project, None, reason)


def _remove(project: Project, job: Job | None, reason: str) -> None:
    project_id, token = project.id, project.import_token
    delete_project(project)
    if job is not None:
        db.session.execute(
            update(Job)
            .where(Job.id == job.id, Job.status.in_(_LIVE))
            .values(status="failed", error=f"stopped: {reason}; the half import was removed")
        )
    if token and _TOKEN.match(token):
        shutil.rmtree(_root() / token, ignore_errors=True)
    log.warning("half import of project %s removed: %s", project_id, reason)


def reconcile_at_start(app: Flask) -> None:
    """Reconcile once when the app starts; a database not migrated yet is skipped."""
    with app.app_context():
        try:
            reconcile_imports()
        except SQLAlchemyError as exc:
            db.session.rollback()
            log.info("import reconciliation skipped: %s", type(exc).__name__)
        finally:
            db.session.remove()
