"""The budget recommendation as a job, when computing it in a request would take long.

Pricing a pair takes about a millisecond, and the first pricing in a process loads the
sources' anonymity-set indexes (app.review.grid.indexes). Above
``RECOMMENDATION_INLINE_PAIRS`` pairs to price (default :data:`INLINE_PAIRS`) or
``RECOMMENDATION_INLINE_RECORDS`` records whose index is not in memory (default
:data:`INLINE_RECORDS`), the pages run it as a :class:`~app.models.Job` with progress (pairs
priced) and show its result when done. The job's result is the recommendation's exact JSON
(:meth:`Recommendation.as_dict`), read back exactly by :meth:`Recommendation.from_dict`; pages
show it in percent, never as JSON.
"""

from __future__ import annotations

from flask import current_app
from sqlalchemy import func, select

from app.extensions import db
from app.jobs import submit
from app.models import Assignment, AssignmentPair, Job, Pair, Project, User, reviewed_pairs
from app.projects.staffing.recommendation import Recommendation, recommend_for, sample_size
from app.review.grid import records_not_in_memory

__all__ = [
    "INLINE_PAIRS",
    "INLINE_RECORDS",
    "KIND",
    "finished_recommendation",
    "recommendation_job",
    "run_recommendation",
    "runs_as_job",
    "submit_recommendation",
]

KIND = "recommendation"
#: Pairs priced in a request at most (about half a second); more run as a job.
INLINE_PAIRS = 500
#: Records whose index a request may load or build (about a tenth of a second).
INLINE_RECORDS = 50_000


def runs_as_job(project: Project, assignment_id: int | None = None) -> bool:
    """Whether the recommendation over all pairs (or one assignment's) would take long."""
    config = current_app.config
    if records_not_in_memory(project) > config.get("RECOMMENDATION_INLINE_RECORDS", INLINE_RECORDS):
        return True
    if assignment_id is None:
        query = select(func.count()).select_from(Pair).where(*reviewed_pairs(project.id))
    else:
        query = select(func.count()).where(AssignmentPair.assignment_id == assignment_id)
    priced = min(db.session.scalar(query) or 0, sample_size())
    return priced > config.get("RECOMMENDATION_INLINE_PAIRS", INLINE_PAIRS)


def submit_recommendation(project: Project, assignment_id: int | None, by: User) -> int:
    """Queue the recommendation of ``project`` (or of one assignment of it); return the job id.

    Raises :class:`LookupError` when ``assignment_id`` is not an assignment of ``project``.
    """
    if assignment_id is not None:
        assignment = db.session.get(Assignment, assignment_id)
        if assignment is None or assignment.project_id != project.id:
            raise LookupError(f"no assignment {assignment_id} in this project")
    return submit(KIND, run_recommendation, project.id, assignment_id, created_by=by.id)


def run_recommendation(project_id: int, assignment_id: int | None, *, progress) -> dict:
    """The job: the recommendation, its pairs priced with ``progress``; its exact JSON."""
    project = db.session.get(Project, project_id)
    advice = recommend_for(project, assignment_id, progress=progress)
    return {
        "project_id": project_id,
        "assignment_id": assignment_id,
        "advice": advice.as_dict() if advice is not None else None,
    }


def recommendation_job(project: Project, job_id: int, user: User) -> Job:
    """The recommendation job ``job_id`` that ``user`` started for ``project``.

    Raises :class:`LookupError` for any other job (or none).
    """
    job = db.session.get(Job, job_id)
    if job is None or job.kind != KIND or job.created_by != user.id:
        raise LookupError("no such recommendation job")
    if job.result is not None and job.result.get("project_id") != project.id:
        raise LookupError("no such recommendation job")
    return job


def finished_recommendation(job: Job) -> Recommendation | None:
    """The recommendation a finished job found (None: no pairs, or not finished)."""
    if job.status != "done" or not job.result or job.result.get("advice") is None:
        return None
    return Recommendation.from_dict(job.result["advice"])
