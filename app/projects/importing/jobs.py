"""Run a large import as a Job: progress in the job row, the project removed if it fails.

Imports above ``IMPORT_JOB_THRESHOLD`` rows go through :func:`app.jobs.submit`. Progress is
written (and committed) after every chunk, so the records written so far are committed
too; a failure part-way therefore deletes the half-made project before the job is marked
failed. Smaller imports stay in the request, whole or not at all.
"""

from __future__ import annotations

from flask import current_app

from app.extensions import db
from app.jobs import submit
from app.models import Project, User
from app.projects.importing.service import fill_import, start_import
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
    project = start_import(staged, staged.meta["plan"], owner)
    project_id = project.id
    try:
        fill_import(project, staged, staged.meta["plan"], progress)
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
