"""Assign a large round as a job: the manager watches its progress, then reads the result.

Assigning more than ``ASSIGN_JOB_PAIRS`` pairs (default :data:`DEFAULT_JOB_PAIRS`) from the
browser runs :func:`run_assignment` through :func:`app.jobs.submit`; smaller assignments are
made in the request. The request checks what can be checked without reading the pairs
(:func:`app.projects.staffing.workers.check_plan`) before queueing, so a wrong form is
answered at once; a refusal found by the job itself (a race, a start at partial over the
budget) is its result, with the reason, and nothing is kept.
"""

from __future__ import annotations

import time

from flask import current_app
from sqlalchemy import func, select

from app.extensions import db
from app.jobs import submit
from app.models import REVIEWED, AssignmentPair, Job, Pair, Project, User
from app.projects.quality import CheckError, parse_checks
from app.projects.staffing.assignments import AssignmentError, newest_round
from app.projects.staffing.workers import assign_workers, check_plan

__all__ = [
    "DEFAULT_JOB_PAIRS", "KIND", "find_assignment_job", "needs_job", "run_assignment",
    "submit_assignment",
]  # fmt: skip

#: Pairs above which the browser's assignment runs as a job (``ASSIGN_JOB_PAIRS``): about a
#: second of work on SQLite (a million pairs to two workers took ~4-6 s under load).
DEFAULT_JOB_PAIRS = 100_000
KIND = "assign"


def needs_job(project: Project, round: int | None) -> bool:
    """Whether assigning ``round`` (default: the newest) of ``project`` runs as a job."""
    number = newest_round(project) if round is None else round
    query = select(func.count(Pair.id)).where(
        Pair.project_id == project.id,
        Pair.round == number,
        Pair.purpose.in_([p.value for p in REVIEWED]),
    )
    limit = int(current_app.config.get("ASSIGN_JOB_PAIRS", DEFAULT_JOB_PAIRS))
    return (db.session.scalar(query) or 0) > limit


def submit_assignment(project: Project, plan: dict, by: User) -> int:
    """Check ``plan`` (:func:`app.projects.views.forms.parse_assignments`) and queue it; the
    job's id. Raises :class:`AssignmentError` for what the form got wrong."""
    check_plan(project, plan["workers"], start_partial=plan["start_partial"], round=plan["round"])
    db.session.rollback()  # nothing to keep: submit commits the job row alone
    return submit(KIND, run_assignment, project.id, dict(plan), created_by=by.id)


def run_assignment(project_id: int, plan: dict, *, progress) -> dict:
    """The job: :func:`assign_workers` of ``plan``, committed; what was made, or why not."""
    started = time.perf_counter()
    progress(0, 2)
    project = db.session.get(Project, project_id)
    try:
        made = assign_workers(
            project, plan["workers"], coders=plan["coders"], start_partial=plan["start_partial"],
            page_size=plan["page_size"], round=plan["round"], progress=progress,
            checks=parse_checks(plan.get("checks")),
        )  # fmt: skip
    except (
        AssignmentError,
        CheckError,
    ) as exc:  # the program's words (names, counts), never a value
        db.session.rollback()
        return {"project_id": project_id, "refused": str(exc)}
    result = {
        "project_id": project_id,
        "round": made[0].round if made else plan["round"],
        "coders": plan["coders"],
        "assignments": [{"worker": a.worker.username, "pairs": _pairs(a)} for a in made],
    }
    db.session.commit()
    result["seconds"] = round(time.perf_counter() - started, 1)
    return result


def _pairs(assignment) -> int:
    query = select(func.count()).where(AssignmentPair.assignment_id == assignment.id)
    return int(db.session.scalar(query))


def find_assignment_job(project: Project, job_id: int, user: User) -> Job | None:
    """The assignment job ``job_id`` if ``user`` may see it under ``project``: one they
    queued (or any, for an admin), of this project once its result names it."""
    job = db.session.get(Job, job_id)
    if job is None or job.kind != KIND:
        return None
    if job.created_by != user.id and user.role != "admin":
        return None
    if job.result and job.result.get("project_id") != project.id:
        return None
    return job
