"""Run a large import as a Job: progress in the job row, the project removed if it fails.

Imports above ``IMPORT_JOB_THRESHOLD`` rows go through :func:`app.jobs.submit`. Progress is
written (and committed) after every batch, so the records written so far are committed
too, under a project still marked ``importing`` (listed nowhere). A failure part-way deletes
the half-made project before the job is marked failed; a process killed part-way leaves it
to :mod:`app.projects.importing.recovery`. Smaller imports stay in the request, whole or
not at all.
"""

from __future__ import annotations

from flask import current_app

from app.extensions import db
from app.jobs import current_job_id, submit
from app.models import Project, User
from app.projects.importing.service import fill_import, finish_import, start_import
from app.projects.importing.uploads import Staged, discard, load
from app.projects.lifecycle.service import delete_project

__all__ = ["DEFAULT_THRESHOLD", "needs_job", "run_import", "submit_import"]

DEFAULT_THRESHOLD = 50_000


def needs_job(staged: Staged) -> bool:
    threshold = current_app.config.get("IMPORT_JOB_THRESHOLD", DEFAULT_THRESHOLD)
    return int(staged.meta.get("rows") or 0) > int(threshold)


def submit_import(staged: Staged, owner: User) -> int:
    """Queue the import of ``staged`` (already checked); return the job id."""
    return submit("import", run_import, staged.token, owner.id, created_by=owner.id)


def run_import(token: str, owner_id: int, *, progress) -> dict:
    """The job: import the staged upload ``token`` of ``owner_id``; ``{"project_id": ...}``."""
    staged = load(token, owner_id)
    owner = db.session.get(User, owner_id)
    project = start_import(staged, staged.meta["plan"], owner, job_id=current_job_id())
    project_id = project.id
    db.session.commit()  # the importing project is on record before its first batch
    try:
        fill_import(project, staged, staged.meta["plan"], progress)
        finish_import(project)
        db.session.commit()
    except Exception:
        db.session.rollback()
        leftover = db.session.get(Project, project_id)
        if leftover is not None:
            delete_project(leftover)
            db.session.commit()
        raise
    discard(staged)
    return {"project_id": project_id}
