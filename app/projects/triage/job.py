"""Preview and import a large file of scored pairs as Jobs: progress in the job row, not a
hanging request.

Files above ``TRIAGE_JOB_THRESHOLD`` pairs (:func:`needs_job`, counted without reading the
file: Parquet's row count, a CSV's lines) are previewed by :func:`run_preview` (read, ids
resolved, triaged, nothing written: seconds at millions of pairs) and triaged and written by
:func:`run_round`, both through :func:`app.jobs.submit`; smaller ones stay in the request.
A preview job keeps its counts and histogram in its result (:func:`stored_preview`). The
round is written in one transaction, whole or not at all: progress goes to the job row
between the steps (read, resolved and triaged, written) through the job's own session, and
while the pairs are written, chunk by chunk, on PostgreSQL only, through a connection of its
own (SQLite has one writer at a time: its job row waits for the end of the write). A file
that does not fit the project ends either job ``done`` with its ``problems`` (rows and
columns, never a value) for the triage page, the staged file kept for another try (a file no
setting can read is deleted).
"""

from __future__ import annotations

import contextlib
import time

from flask import current_app
from sqlalchemy import update

from app.extensions import db
from app.jobs import submit
from app.models import Job, Project, User
from app.models.base import utcnow
from app.projects.importing.uploads import UploadError, discard, load
from app.projects.reading.predictions import PredictionsError, count_rows
from app.projects.triage.plan import TriageError, TriageSettings
from app.projects.triage.rounds import TriagePreview, add_scored_round, preview_scores
from app.projects.triage.scored import ScoredPairsError, read_scores

__all__ = [
    "DEFAULT_THRESHOLD",
    "KIND",
    "PREVIEW_KIND",
    "count_pairs",
    "needs_job",
    "run_preview",
    "run_round",
    "stored_preview",
    "submit_preview",
    "submit_round",
]

KIND, PREVIEW_KIND = "triage", "triage_preview"
DEFAULT_THRESHOLD = 200_000
PROGRESS_SECONDS = 2.0
REFUSED = (PredictionsError, ScoredPairsError, TriageError, UploadError)


def count_pairs(path) -> int:
    """The pairs in a staged file without reading it: Parquet's row count, else CSV lines
    (:class:`PredictionsError` for a Parquet file whose footer cannot be read)."""
    return count_rows(path)


def needs_job(path) -> bool:
    threshold = current_app.config.get("TRIAGE_JOB_THRESHOLD", DEFAULT_THRESHOLD)
    return count_pairs(path) > int(threshold)


def submit_round(
    project: Project, token: str, settings: TriageSettings, sources, filename, by: User
) -> int:
    """Queue the import of the staged file ``token`` as ``project``'s next round; the job id."""
    args = (project.id, token, by.id, settings.as_dict(), sources, filename)
    return submit(KIND, run_round, *args, created_by=by.id)


def run_round(
    project_id: int, token: str, user_id: int, settings: dict, sources, filename, *, progress
) -> dict:
    """The job: read, triage and write the staged scored pairs ``token`` of ``user_id``."""
    project, by = db.session.get(Project, project_id), db.session.get(User, user_id)
    out = {"project_id": project_id, "token": token}
    try:
        staged = load(token, user_id, kind="scores")
        total = count_pairs(staged.path("scores"))
        progress(0, total)  # reading, resolving and triaging: nothing written yet
        made = add_scored_round(
            project, read_scores(staged.path("scores")), TriageSettings(**settings), by,
            sources=sources, filename=filename, progress=_Writing(progress.job_id),
        )  # fmt: skip
    except REFUSED as exc:
        db.session.rollback()
        _unreadable(exc, token, user_id)
        return {**out, "problems": getattr(exc, "problems", None) or [str(exc)]}
    written = made.counts["pairs"]  # the pairs present already are not counted there
    progress(written, written)  # commits the round
    discard(staged)
    return {**out, "round": made.number, "counts": made.counts}


def submit_preview(
    project: Project, token: str, form: dict, settings: TriageSettings, sources, by: User
) -> int:
    """Queue the preview of the staged file ``token`` with ``settings`` (``form``: the triage
    page's fields, shown again with the preview); the job id."""
    args = (project.id, token, by.id, form, settings.as_dict(), sources)
    return submit(PREVIEW_KIND, run_preview, *args, created_by=by.id)


def run_preview(
    project_id: int, token: str, user_id: int, form: dict, settings: dict, sources, *, progress
) -> dict:
    """The job: what importing the staged file ``token`` would do; nothing is written."""
    project = db.session.get(Project, project_id)
    out = {"project_id": project_id, "token": token, "form": form, "settings": settings}
    try:
        path = load(token, user_id, kind="scores").path("scores")
        progress(0, count_pairs(path))
        made = preview_scores(
            project, read_scores(path), TriageSettings(**settings), sources=sources
        )
    except REFUSED as exc:
        db.session.rollback()
        _unreadable(exc, token, user_id)
        return {**out, "problems": getattr(exc, "problems", None) or [str(exc)]}
    kept = {"counts": made.counts, "chart": made.chart, "datasets": made.datasets,
            "strata": made.strata}  # fmt: skip
    return {**out, "preview": kept}  # plain ints, floats and strings, as run_round's counts


def _unreadable(exc: Exception, token: str, user_id: int) -> None:
    """Delete the staged file when no setting can read it (a file that does not fit the
    project waits for other settings)."""
    if isinstance(exc, PredictionsError):
        with contextlib.suppress(UploadError):  # gone already
            discard(load(token, user_id, kind="scores"))


def stored_preview(result: dict) -> TriagePreview:
    """The preview a :func:`run_preview` job kept in its ``result``."""
    kept = result["preview"]
    settings = TriageSettings(**result["settings"])
    return TriagePreview(kept["counts"], settings, kept["chart"], kept["datasets"], kept["strata"])


class _Writing:
    """``progress(written, total)`` of the pairs' write: the job row updated at most every
    :data:`PROGRESS_SECONDS` on a connection of its own (PostgreSQL), never the session's,
    so the round stays one transaction."""

    def __init__(self, job_id: int) -> None:
        self.job_id, self.last = job_id, time.monotonic()
        self.engine = db.engine if db.engine.dialect.name == "postgresql" else None

    def __call__(self, written: int, total: int) -> None:
        if self.engine is None or time.monotonic() - self.last < PROGRESS_SECONDS:
            return
        self.last = time.monotonic()
        with self.engine.begin() as connection:
            connection.execute(
                update(Job)
                .where(Job.id == self.job_id)
                .values(progress_done=written, progress_total=total, heartbeat_at=utcnow())
            )
