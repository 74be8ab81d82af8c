"""The close-out page's pass over the database files, as a job the page follows.

:func:`~.erasure.erase_storage` rewrites each database (a ``VACUUM`` of a whole SQLite file,
or ``VACUUM FULL`` once no transaction older than the close-out runs, which waits up to
``CLOSEOUT_ERASE_WAIT_SECONDS``): seconds on FEBRL4's PostgreSQL, minutes on a large file. So
the close-out POST commits, starts :func:`erase_in_job` and returns; the closed page says
which database it rewrites until the pass is recorded. A pass that fails or never runs leaves
the project among :func:`~.erasure.pending_erasures` (``flask projects close-due`` runs it).
"""

from __future__ import annotations

from app.extensions import db
from app.jobs import submit
from app.jobs.status import report_step
from app.models import Job, User
from app.projects.custody.erasure import describe, erase_storage, latest_erasure

__all__ = ["KIND", "erase_in_background", "erase_in_job", "erasure_job", "erasure_news"]

KIND = "closeout-erase"


def erase_in_job(project_ids: list[int], *, progress) -> dict:
    """The job: :func:`erase_storage`, saying which database it rewrites; its result is the
    pass's id and whether it completed (never a value)."""

    def each(what: str, done: int, total: int) -> None:
        progress(done, total)
        report_step(progress, f"{what} ({done + 1} of {total})")

    erasure = erase_storage(project_ids, each)
    passes = len(erasure.detail["databases"])
    progress(passes, passes)
    return {"project_ids": list(project_ids), "erasure": erasure.id, "complete": erasure.complete}


def erase_in_background(project_ids: list[int], by: User) -> Job:
    """Start the pass over the database files after a close-out committed, as a job (run
    before this returns with the inline executor of the tests); its row."""
    ids = list(project_ids)
    about = {"project_ids": ids}  # whose pass it is, from the start (erasure_job)
    return db.session.get(Job, submit(KIND, erase_in_job, ids, created_by=by.id, about=about))


def erasure_job(job_id: int | None, project_id: int) -> Job | None:
    """The erasure job ``job_id`` if it is one of ``project_id``'s, else None (queued,
    running or ended: its row names its projects from the start)."""
    job = db.session.get(Job, job_id) if job_id is not None else None
    if job is None or job.kind != KIND:
        return None
    ids = (job.result or {}).get("project_ids") or []
    return job if project_id in ids else None


def erasure_news(job: Job, project_id: int) -> tuple[str, bool]:
    """What to tell the manager of the pass ``job`` just started (the end of a sentence), and
    whether all is well so far."""
    if job.status != "done":
        return "erasing them from the database files now", job.status != "failed"
    erasure = latest_erasure(project_id)
    return describe(erasure), erasure is not None and erasure.complete
