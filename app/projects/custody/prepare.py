"""The close-out page's final exports, hashed by a job with progress.

Writing and hashing a project's seven final exports takes seconds (FEBRL4: ~3 s, mostly its
linkage of 160,856 pairs), too long for a page to wait on in silence. :func:`final_hashes`
gives the page the hashes of the newest preparation made for the project *as it is now* (its
:func:`state_of`: what the exports are made of), or starts one (:func:`prepare_final_exports`,
a job saying which export it writes) for the page to follow. The job keeps hashes only, never a
value. The close-out POST takes the same preparation's hashes (:func:`prepared_hashes`, under
the project's lock) instead of writing the exports again, and is refused when none fits the
project as it is then (:func:`~.closeout.close_project`).
"""

from __future__ import annotations

import hashlib

from sqlalchemy import func, select

from app.extensions import db
from app.jobs import submit
from app.jobs.status import report_step
from app.models import (
    Assignment,
    ConflictResolution,
    DecisionEvent,
    Job,
    Pair,
    Project,
    Round,
    Source,
    User,
)
from app.projects.custody.archive import export_hashes
from app.projects.custody.closeout import final_exports

__all__ = ["KIND", "final_hashes", "prepare_final_exports", "prepared_hashes", "state_of"]

KIND = "closeout-prepare"
_LOOKED_AT = 50  # the newest preparations looked through for this project's


def state_of(project: Project) -> str:
    """A digest of what the final exports are made of: name, attributes, records, pairs,
    answers, resolutions, rounds, the linker's source names (a handful of indexed aggregates)
    and each assignment's worker and KAPR (its ``version`` counts its reveals)."""
    pid = project.id
    assignments = select(Assignment.id).where(Assignment.project_id == pid)
    values = [
        project.name, project.kind, project.records_version,
        *db.session.execute(
            select(func.count(Pair.id), func.max(Pair.id)).where(Pair.project_id == pid)
        ).one(),
        db.session.scalar(
            select(func.max(DecisionEvent.id)).where(DecisionEvent.assignment_id.in_(assignments))
        ),
        db.session.scalar(
            select(func.max(ConflictResolution.id))
            .join(Pair, Pair.id == ConflictResolution.pair_id)
            .where(Pair.project_id + 0 == pid)
        ),
        db.session.scalar(select(func.max(Round.id)).where(Round.project_id == pid)),
        *map(tuple, db.session.execute(
            select(
                Assignment.id, Assignment.worker_id, Assignment.resolver, Assignment.kapr_exact,
                Assignment.version,
            ).where(Assignment.project_id == pid).order_by(Assignment.id)
        )),
        *db.session.scalars(
            select(Source.dataset).where(Source.project_id == pid).order_by(Source.label)
        ),
        [(a.name, a.kind, a.identifying, a.truth) for a in project.attributes],
    ]  # fmt: skip
    return hashlib.sha256(repr(values).encode()).hexdigest()


def prepare_final_exports(project_id: int, state: str, *, progress) -> dict:
    """The job: every final export written and hashed, one step each (nothing kept but the
    hashes)."""
    project = db.session.get(Project, project_id)

    def each(kind: str, done: int, total: int) -> None:
        progress(done, total)
        report_step(progress, f"writing and hashing the {kind} export ({done + 1} of {total})")

    hashes = export_hashes(final_exports(project, each))
    progress(len(hashes), len(hashes))
    return {"project_id": project_id, "state": state, "hashes": hashes}


def final_hashes(project: Project, job_id: int | None, by: User) -> tuple[dict, Job | None]:
    """``(hashes, job)``: the hashes of the project's current final exports when a
    preparation has them, else ``{}`` and the preparation to follow (``job_id``'s, or one
    started now)."""
    state = state_of(project)

    def fits(job: Job | None) -> bool:
        return _fits(job, project, state)

    job = db.session.get(Job, job_id) if job_id is not None else None
    if job is not None and job.kind != KIND:
        job = None
    if job is not None and job.status in ("failed", "cancelled"):
        return {}, job  # said on the page, not started again by itself
    if job is None:
        job = _newest_fitting(project, state)
    if job is None or (job.status == "done" and not fits(job)):
        job = db.session.get(
            Job, submit(KIND, prepare_final_exports, project.id, state, created_by=by.id)
        )
    if job.status == "done" and fits(job):
        return job.result["hashes"], job
    return {}, job


def prepared_hashes(project: Project) -> dict | None:
    """The hashes of the newest finished preparation of ``project`` as it is now, or None
    (it changed since, or was never prepared): what the close-out POST takes instead of
    writing the exports again."""
    job = _newest_fitting(project, state_of(project))
    return None if job is None else job.result["hashes"]


def _fits(job: Job | None, project: Project, state: str) -> bool:
    result = (job.result or {}) if job is not None else {}
    return result.get("project_id") == project.id and result.get("state") == state


def _newest_fitting(project: Project, state: str) -> Job | None:
    recent = db.session.scalars(
        select(Job)
        .where(Job.kind == KIND, Job.status == "done")
        .order_by(Job.id.desc())
        .limit(_LOOKED_AT)
    )
    return next((j for j in recent if _fits(j, project, state)), None)
