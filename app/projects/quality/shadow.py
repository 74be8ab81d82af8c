"""A project's checks project: where its synthetic checks' records and pairs are kept.

The checks project (state ``checks``, ``checks_of`` the real project) has a source per real
source, with the same label, and nothing else: every reader of the real project's records,
pairs, answers and reveals (exports, blocking, scoring, triage, progress, conflicts,
accountability) asks by the real project's id and never meets a synthetic record. It is
listed nowhere and nobody may open it (``app.projects.ownership``); it goes with its project.
"""

from __future__ import annotations

from sqlalchemy import func, select

from app.extensions import db
from app.models import Project, ProjectState, Record, Source

__all__ = ["checks_project", "checks_project_id", "next_positions"]


def checks_project_id(project: Project) -> int | None:
    """The id of ``project``'s checks project, None while it has none."""
    return db.session.scalar(
        select(Project.id).where(Project.checks_of == project.id).order_by(Project.id).limit(1)
    )


def checks_project(project: Project) -> Project:
    """``project``'s checks project, made (with its sources) on first use. Flushes."""
    found = checks_project_id(project)
    if found is not None:
        return db.session.get(Project, found)
    shadow = Project(
        name=f"checks of project {project.id}"[:200],
        kind=project.kind,
        owner_id=project.owner_id,
        kappa=project.kappa,
        default_budget=project.default_budget,
        evidence_model=project.evidence_model,
        page_size=project.page_size,
        state=ProjectState.CHECKS.value,
        checks_of=project.id,
    )
    db.session.add(shadow)
    db.session.flush()
    for source in project.sources:
        db.session.add(Source(project_id=shadow.id, label=source.label, record_count=0))
    db.session.flush()
    return shadow


def next_positions(shadow: Project) -> dict[str, tuple[int, int]]:
    """Each checks source by label: its id and the next free record position."""
    rows = db.session.execute(
        select(Source.label, Source.id, func.coalesce(func.max(Record.position) + 1, 0))
        .outerjoin(Record, Record.source_id == Source.id)
        .where(Source.project_id == shadow.id)
        .group_by(Source.label, Source.id)
    ).all()
    return {label: (source_id, position) for label, source_id, position in rows}
