"""Close out a finished project: final exports hashed, identifying values and vault destroyed.

What goes: every record's identifying values (the record keeps its pseudonym, source and
record id), the project's vault rows (sensitive values), its name counts (names from the
upload), its scored pairs' files, its scoring runs' working folders (refused while a live
process still holds one) and any staged upload of it on disk. What stays: the
pseudonyms, pairs, decisions, resolutions, clusters, rounds, assignments with their KAPR, the
reveal events (value-free) and the close-out record, which says who closed the project, when,
what was destroyed and the SHA-256 of each final export as produced just before (from the
close-out page: as its preparation hashed them, the project unchanged since; :mod:`.prepare`).

The two databases commit one after the other, not atomically: :func:`finish_destruction`
(run by ``flask projects close-due``) deletes vault rows any closed project still has. What
the deleted rows leave in the database files is erased after the commit
(:mod:`app.projects.custody.erasure`; every caller runs ``erase_storage`` once committed).
"""

from __future__ import annotations

import datetime as dt
import logging
from collections.abc import Callable

from flask import current_app
from sqlalchemy import delete, func, select, update

from app.extensions import db
from app.jobs import ACTIVE, STALE_SECONDS, fail_stopped, stale_reason
from app.models import (
    CloseOut,
    Job,
    NameFrequency,
    Pair,
    Project,
    ProjectKind,
    Record,
    ScoringModel,
    User,
    VaultRecord,
)
from app.models.base import utcnow
from app.projects.custody.archive import digest, export_hashes
from app.projects.exports import (
    KINDS,
    ExportRefused,
    components_kept,
    export_csv,
    export_filename,
)
from app.projects.importing.uploads import discard_project_uploads
from app.projects.progress.finals import final_columns
from app.projects.scoring.runs.recovery import WorkHeld, remove_project_work
from app.review.grid import drop_stored_indexes

__all__ = [
    "CloseOutRefused",
    "close_project",
    "completed_at",
    "final_exports",
    "finish_destruction",
    "unsettled_pairs",
]

log = logging.getLogger(__name__)


class CloseOutRefused(ValueError):
    """The project cannot be closed now; the message says why (never a value)."""


def unsettled_pairs(project: Project) -> int:
    """Pairs without a final decision (people's or the model's)."""
    finals = final_columns(project.id)
    return db.session.scalar(
        select(func.count())
        .select_from(finals.joined)
        .where(Pair.project_id == project.id, finals.decision.is_(None))
    )


def final_exports(project: Project, each=None) -> dict[str, bytes]:
    """Every export that applies to ``project``, as the downloads give them: name → bytes.
    ``each(kind, done, total)``, if given, is called before each one is written."""
    files = {}
    kinds = [k for k in KINDS if k != "legacy" or project.kind == ProjectKind.PAIRFILE]
    with components_kept():  # clusters and linked: the same final components, computed once
        for done, kind in enumerate(kinds):
            if each is not None:
                each(kind, done, len(kinds))
            try:
                files[export_filename(project, kind)] = export_csv(project, kind).encode()
            except ExportRefused:
                continue
    return files


def close_project(
    project: Project,
    by: User | None,
    *,
    expected: str | None = None,
    files: dict[str, bytes] | None = None,
    prepared: Callable[[Project], dict | None] | None = None,
) -> CloseOut:
    """Close ``project`` out (see the module), or raise :class:`CloseOutRefused` and change
    nothing. ``expected``: the :func:`digest` of the exports the custodian took; refused if
    the exports produced now differ (the project changed since). ``prepared(project)``, if
    given, is called under the project's lock for the hashes of a preparation of the project
    as it is then (:func:`~.prepare.prepared_hashes`), taken instead of writing the exports
    again; refused when it has none. ``by`` None: automatic. The caller commits."""
    _lock(project)
    if project.closed:
        raise CloseOutRefused("this project is closed out already")
    open_pairs = unsettled_pairs(project)
    if open_pairs:
        raise CloseOutRefused(
            f"{open_pairs:,} pair(s) have no final decision yet: settle every pair "
            "(answers, conflicts) before closing the project"
        )
    if _running_jobs(project):
        raise CloseOutRefused(
            "a scoring job of this project is still running: wait for it or cancel it"
        )
    hashes = _hashes(project, files, prepared)
    if expected is not None and expected != digest(hashes):
        raise CloseOutRefused(
            "the exports changed since they were downloaded (the project changed): "
            "download the final exports again, then close"
        )
    try:
        folders = remove_project_work(project.id)  # first: a refusal changes nothing
    except WorkHeld as exc:
        raise CloseOutRefused(str(exc)) from None
    destroyed = {**_destroy(project), "working_folders": folders}
    project.closed_at = utcnow()
    project.records_version += 1  # caches of the records' values are stale
    row = CloseOut(
        project_id=project.id,
        closed_by=by.id if by is not None else None,
        at=project.closed_at,
        automatic=by is None,
        destroyed=destroyed,
        exports=hashes,
    )
    db.session.add(row)
    db.session.flush()
    log.info("project %s closed out (%s)", project.id, "automatic" if by is None else by.id)
    return row


def _hashes(project: Project, files, prepared) -> dict[str, dict]:
    """The final exports' hashes: of ``files``, of the preparation, or of exports written now."""
    if prepared is None:
        return export_hashes(final_exports(project) if files is None else files)
    hashes = prepared(project)
    if hashes is None:
        raise CloseOutRefused(
            "the project changed since its final exports were prepared for the close-out "
            "page: open the page again (it writes them again), download them again, then close"
        )
    return hashes


def _lock(project: Project) -> None:
    """Hold the project's row until the close-out commits, and read it again.

    An answer inserts only under a key-share lock of this row while it is open
    (:mod:`app.review.answers.save`): it waits for this lock and then finds the project
    closed, or it committed first and is read below. ``FOR UPDATE`` on PostgreSQL; SQLite's
    transactions begin ``IMMEDIATE`` (``app.database``), so its write lock is already held.
    """
    query = select(Project).where(Project.id == project.id)
    if db.session.get_bind().dialect.name != "sqlite":
        query = query.with_for_update()
    db.session.scalars(query.execution_options(populate_existing=True)).one()


def _running_jobs(project: Project) -> bool:
    """Whether a scoring job of the project may still run; one whose process is gone (killed)
    is failed here, as a restart would (:mod:`app.jobs.recovery`)."""
    jobs = select(ScoringModel.run_job_id).where(ScoringModel.project_id == project.id)
    trained = select(ScoringModel.job_id).where(ScoringModel.project_id == project.id)
    query = select(Job).where(Job.status.in_(ACTIVE), Job.id.in_(jobs.union(trained)))
    stale_after = float(current_app.config.get("JOBS_STALE_SECONDS", STALE_SECONDS))
    running = False
    for job in db.session.scalars(query).all():
        reason = stale_reason(job, now=utcnow(), stale_after=stale_after)
        if reason is None or not fail_stopped(job, reason):
            running = True
    return running


def _destroy(project: Project) -> dict[str, int]:
    """Delete the project's values; return how many of each kind went."""
    from app.projects.scoring.service import remove_project_files

    pid = project.id  # (SQLite zeroes what is deleted: secure_delete, app.database)
    records = db.session.execute(
        update(Record).where(Record.project_id == pid).values(values={}, characters=0)
    ).rowcount
    # its synthetic checks too: about nobody, but shaped by the project's values (words many
    # of its records share) and of no use once nothing can be revealed (docs/quality.md)
    checks = select(Project.id).where(Project.checks_of == pid)
    db.session.execute(
        update(Record).where(Record.project_id.in_(checks)).values(values={}, characters=0)
    )
    drop_stored_indexes(pid)  # they hold the normalised identifying values too
    vault = db.session.execute(delete(VaultRecord).where(VaultRecord.project_id == pid)).rowcount
    names = db.session.execute(
        delete(NameFrequency).where(NameFrequency.project_id == pid)
    ).rowcount
    predictions = db.session.execute(
        update(ScoringModel)
        .where(ScoringModel.project_id == pid, ScoringModel.predictions.is_not(None))
        .values(predictions=None)
    ).rowcount
    remove_project_files(pid)
    uploads = discard_project_uploads(pid, project.import_token)
    return {
        "records_identifying_values": records,
        "vault_rows": vault,
        "name_frequencies": names,
        "prediction_files": predictions,
        "staged_uploads": uploads,
    }


def finish_destruction() -> int:
    """Delete vault rows left by closed projects (a vault commit that failed); how many."""
    closed = list(db.session.scalars(select(Project.id).where(Project.closed_at.is_not(None))))
    if not closed:
        return 0
    return db.session.execute(
        delete(VaultRecord).where(VaultRecord.project_id.in_(closed))
    ).rowcount


def completed_at(project: Project) -> dt.datetime | None:
    """When the project's last pair was settled (its newest decision, resolution or round);
    None while a pair is unsettled."""
    from app.models import Assignment, ConflictResolution, DecisionEvent, Round

    if unsettled_pairs(project):
        return None
    assignments = select(Assignment.id).where(Assignment.project_id == project.id)
    pairs = select(Pair.id).where(Pair.project_id == project.id)
    times = [
        db.session.scalar(
            select(func.max(DecisionEvent.at)).where(DecisionEvent.assignment_id.in_(assignments))
        ),
        db.session.scalar(
            select(func.max(ConflictResolution.at)).where(ConflictResolution.pair_id.in_(pairs))
        ),
        db.session.scalar(select(func.max(Round.at)).where(Round.project_id == project.id)),
        project.created_at,
    ]
    known = [t if t.tzinfo else t.replace(tzinfo=dt.UTC) for t in times if t is not None]
    return max(known)
