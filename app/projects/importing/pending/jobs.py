"""Run a large mapping check as a Job: progress in the job row, the project removed if it fails.

Uploads above ``IMPORT_JOB_THRESHOLD`` rows are checked and written by :func:`run_check`
through :func:`app.jobs.submit`. Progress is written (and committed) after a batch at most
every :data:`PROGRESS_SECONDS`: each commit syncs, and may checkpoint, both SQLite files (at
every 20k-row batch, over a third of a million-row import's wall time under load). The
records written so far are committed too, under a project still marked ``importing``
(listed nowhere). A failure part-way deletes the half-made project before the
job is marked failed, and a bad file's problems are kept in the staged upload for the
mapping page (a file with a record past ``MAX_RECORD_CHARS`` is deleted instead); a
process killed part-way leaves it to :mod:`app.projects.importing.recovery`.
On success the project waits for its manager's confirmation
(:mod:`app.projects.importing.pending.waiting`). Smaller uploads are checked and written in the
request, whole or not at all.
"""

from __future__ import annotations

import time

from flask import current_app
from sqlalchemy import select

from app.extensions import db
from app.jobs import current_job_id, submit
from app.limits import past_a_limit
from app.models import Project, ProjectState, User
from app.projects.importing.pending.waiting import check_and_write, estimate_rows, remember
from app.projects.importing.uploads import Staged, discard, load
from app.projects.lifecycle import delete_project

__all__ = ["DEFAULT_THRESHOLD", "needs_job", "run_check", "submit_check"]

DEFAULT_THRESHOLD = 50_000
PROGRESS_SECONDS = 10.0


class _Throttled:
    """``progress(done, total)`` passed on at most every ``seconds`` (the first call always)."""

    def __init__(self, progress, seconds: float) -> None:
        self.progress, self.seconds, self.last = progress, seconds, None

    def __call__(self, done: int, total: int) -> None:
        now = time.monotonic()
        if self.last is None or now - self.last >= self.seconds:
            self.last = now
            self.progress(done, total)


def needs_job(staged: Staged) -> bool:
    threshold = current_app.config.get("IMPORT_JOB_THRESHOLD", DEFAULT_THRESHOLD)
    return estimate_rows(staged) > int(threshold)


def submit_check(staged: Staged, owner: User) -> int:
    """Queue the check and write of ``staged`` (its plan saved); return the job id."""
    return submit("import", run_check, staged.token, owner.id, created_by=owner.id)


def run_check(token: str, owner_id: int, *, progress) -> dict:
    """The job: check and write the staged upload ``token`` of ``owner_id`` into a project
    waiting for confirmation; ``{"project_id": ..., "token": ...}``."""
    staged = load(token, owner_id)
    owner = db.session.get(User, owner_id)
    staged.meta["rows"] = estimate_rows(staged)  # the progress bar's total
    try:
        project, checked = check_and_write(
            staged, staged.meta["plan"], owner, job_id=current_job_id(),
            progress=_Throttled(progress, PROGRESS_SECONDS),
        )  # fmt: skip
        project_id, rows = project.id, sum(checked.records.values())
        remember(staged, project, checked)  # before the commit that makes it wait
        progress(rows, rows)  # commits
    except Exception as exc:
        db.session.rollback()
        _remove_written(token)
        problems = getattr(exc, "problems", ())
        if past_a_limit(problems):  # a record past the limits: the file must be corrected
            discard(staged)
        else:  # kept for another mapping, with the problems for the mapping page
            remember(staged, None, None, problems, getattr(exc, "total", None))
        raise
    return {"project_id": project_id, "token": token}


def _remove_written(token: str) -> None:
    """Delete what this check wrote (the upload's only ``importing`` project); commit."""
    query = select(Project).where(
        Project.import_token == token, Project.state == ProjectState.IMPORTING.value
    )
    for project in db.session.scalars(query).all():
        delete_project(project)
    db.session.commit()
