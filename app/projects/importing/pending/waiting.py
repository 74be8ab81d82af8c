"""One pass from a mapping to a project: check while writing, then publish on confirmation.

Submitting the mapping validates every row *and* writes the records into a new project that
stays ``importing`` (listed nowhere, reachable by no page, API, worker or export). While its
rows arrive, ``import_owner`` names the writing process; once every row is in, the owner is
cleared and the project *waits* for its manager: the "checked" page shows the counts, and
"Import" only publishes it (:func:`publish`: state ``ready``, no record touched). Checking
again (another mapping, or going back) deletes the waiting project first
(:func:`discard_pending`); a bad file leaves nothing (rolled back in the request, deleted by
the job). :mod:`app.projects.importing.recovery` removes a waiting project whose staged
upload is gone or expired, and never one whose upload is still there.

The staged upload's ``meta.json`` remembers the plan, the mapping form, the project waiting
for confirmation and what the check found (counts, dropped rows: never a value).
"""

from __future__ import annotations

from dataclasses import asdict

from sqlalchemy import select

from app.core.disclosure import FIRST_NAMES, LAST_NAMES, name_columns
from app.extensions import db
from app.models import Project, ProjectState, User
from app.projects.importing.service import (
    Checked,
    _attributes,
    fill_import,
    finish_import,
    start_import,
)
from app.projects.importing.uploads import Staged, UploadError
from app.projects.lifecycle import ProjectSpecError, delete_project
from app.projects.lifecycle.spec import project_settings

__all__ = [
    "check_and_write",
    "check_plan",
    "checked_of",
    "discard_pending",
    "estimate_rows",
    "pending_project",
    "publish",
    "remember",
]

_LINE_CHUNK = 1 << 20
_RESULTS = ("checked", "project_id", "problems", "problems_total")


def estimate_rows(staged: Staged) -> int:
    """At most how many data rows the staged files hold (line count less the header)."""
    if "estimated_rows" not in staged.meta:
        total = 0
        for label in staged.record_labels():
            lines = 0
            with staged.path(label).open("rb") as fh:
                while chunk := fh.read(_LINE_CHUNK):
                    lines += chunk.count(b"\n")
            total += max(lines, 1) - 1
        staged.meta["estimated_rows"] = total
    return int(staged.meta["estimated_rows"])


def check_plan(plan: dict) -> None:
    """Raise ``ProjectSpecError`` for a bad schema or settings, before any file is read.

    A plan with a name-frequency file (``plan["frequencies"]``) needs identifying first- and
    last-name columns for the counts to go to (the workers' markers read them there).
    """
    project_settings(plan["settings"])
    _attributes(plan, plan["header"])
    first, last = name_columns(plan["identifying"])
    if plan.get("frequencies") and (first is None or last is None):
        raise ProjectSpecError(
            [
                "the name-frequency file needs identifying first- and last-name columns "
                f"(named like {FIRST_NAMES[0]} or {FIRST_NAMES[-1]}, and {LAST_NAMES[0]} or "
                f"{LAST_NAMES[-2]}); otherwise leave it out"
            ]
        )


def check_and_write(
    staged: Staged, plan: dict, owner: User, *, progress=None, job_id: int | None = None
) -> tuple[Project, Checked]:
    """Validate ``staged`` while writing it into a new project that waits for confirmation.

    Flushes; the caller commits (or, on :class:`CsvImportError` / ``ProjectSpecError``,
    rolls back: nothing is kept). With ``progress``, the caller commits batch by batch and
    must delete the project on failure (see :mod:`app.projects.importing.pending.jobs`).
    """
    project = start_import(staged, plan, owner, job_id=job_id)
    if progress is not None:
        db.session.commit()  # the importing project is on record before its first batch
    checked = fill_import(project, staged, plan, progress)
    project.import_owner = None  # every row is in: waiting for the manager, not a writer
    db.session.flush()
    return project, checked


def remember(
    staged: Staged, project: Project | None, checked: Checked | None, problems=(), total=None
):
    """Record the outcome of a check in the staged upload (before the caller commits);
    ``total`` counts the problems when ``problems`` lists only the first."""
    for key in _RESULTS:
        staged.meta.pop(key, None)
    if project is not None and checked is not None:
        staged.meta["project_id"], staged.meta["checked"] = project.id, asdict(checked)
    if problems:
        staged.meta["problems"] = [str(p) for p in problems]
        staged.meta["problems_total"] = max(total or 0, len(problems))
    staged.save()


def checked_of(staged: Staged) -> Checked | None:
    """What the last check of ``staged`` found, if a project waits for confirmation."""
    if pending_project(staged) is None or "checked" not in staged.meta:
        return None
    return Checked(**staged.meta["checked"])


def pending_project(staged: Staged) -> Project | None:
    """The project of ``staged`` written whole and waiting for its manager, if any."""
    project = db.session.get(Project, staged.meta.get("project_id") or 0)
    if (
        project is None
        or project.state != ProjectState.IMPORTING
        or project.import_token != staged.token
        or project.owner_id != staged.meta.get("owner")
        or project.import_owner is not None  # still being written
    ):
        return None
    return project


def discard_pending(staged: Staged) -> int:
    """Delete every waiting project of ``staged`` (flushes; the caller commits); how many.

    A project still being written (by a job) is left to that job: raises
    :class:`UploadError` instead.
    """
    query = select(Project).where(
        Project.import_token == staged.token, Project.state == ProjectState.IMPORTING.value
    )
    projects = db.session.scalars(query).all()
    if any(p.import_owner is not None for p in projects):
        raise UploadError("this upload is still being checked; wait for the check to finish")
    for project in projects:
        delete_project(project)
    for key in _RESULTS:
        staged.meta.pop(key, None)
    return len(projects)


def publish(staged: Staged) -> Project:
    """Make the project waiting for ``staged``'s confirmation visible (``ready``); flush."""
    project = pending_project(staged)
    if project is None:
        raise UploadError("nothing checked is waiting for this upload; check the mapping again")
    finish_import(project)
    return project
