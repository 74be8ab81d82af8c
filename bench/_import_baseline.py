"""The manager's import path as on main before the one-pass work, kept as the bench's baseline.

Main at 484cde2 checked the upload in the mapping step (:func:`check_upload`: a whole pass
over every file), then, on "Import", read and normalised the files again while writing them:
in the request, or as a job (``run_import`` below, as it was) above
``IMPORT_JOB_THRESHOLD`` rows. The reading, normalising and writing functions it called are
the ones this branch still has; :func:`main_path` puts their sequence back.
"""

from __future__ import annotations

from flask import current_app

from app.extensions import db
from app.jobs import current_job_id, submit
from app.models import Project, User
from app.projects.importing.service import (
    check_upload,
    fill_import,
    finish_import,
    import_upload,
    start_import,
)
from app.projects.importing.uploads import Staged, discard, load
from app.projects.lifecycle import delete_project


def main_path(staged: Staged, plan: dict, owner: User) -> int:
    """Check (mapping step), then import (confirmation) as main did; the rows imported."""
    # This module runs on the baseline's own application code (--app-root), where the job
    # threshold still lives in importing.jobs (today importing.pending.jobs).
    from app.projects.importing.jobs import DEFAULT_THRESHOLD

    checked = check_upload(staged, plan)
    staged.meta["plan"] = plan
    staged.meta["rows"] = sum(checked.records.values())
    staged.save()
    threshold = current_app.config.get("IMPORT_JOB_THRESHOLD", DEFAULT_THRESHOLD)
    if staged.meta["rows"] > int(threshold):
        submit("import", run_import, staged.token, owner.id, created_by=owner.id)
    else:
        import_upload(staged, plan, owner)
        db.session.commit()
        discard(staged)
    return staged.meta["rows"]


def run_import(token: str, owner_id: int, *, progress) -> dict:
    """Main's import job, as it was."""
    staged = load(token, owner_id)
    owner = db.session.get(User, owner_id)
    project = start_import(staged, staged.meta["plan"], owner, job_id=current_job_id())
    project_id = project.id
    db.session.commit()
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
