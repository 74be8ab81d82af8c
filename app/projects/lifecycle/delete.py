"""Delete a project and everything of it."""

from __future__ import annotations

from sqlalchemy import delete, select

from app.extensions import db
from app.models import Assignment, AssignmentPair, ConflictResolution, Pair, Project, VaultRecord

__all__ = ["delete_project"]


def delete_project(project: Project) -> None:
    """Delete a project and everything of it, vault rows and scored pairs' files included.
    The caller commits.

    No table has a key to ``pairs`` and an assignment's pairs have no keys at all
    (``app.models.pair``, ``app.models.assignment``): each is deleted here in one statement,
    where a key would check every other table once per deleted pair. The rest goes with the
    project by its keys: assignments, and with each assignment (one statement per table) its
    cells, reveals, answers, referrals and checks; the answers' counts; synthetic checks'
    projects and their records."""
    from app.projects.scoring.service import remove_project_files

    checks = select(Project.id).where(Project.checks_of == project.id)
    projects = [project.id, *db.session.scalars(checks)]
    assignments = db.session.scalars(
        select(Assignment.id).where(Assignment.project_id.in_(projects))
    ).all()
    # by lists of ids, so the session matches its own objects in memory (an IN subquery
    # would fetch every deleted row's key first); the resolutions' delete leaves the session
    # as it is (a resolution loaded in it is never changed, so never written back)
    db.session.execute(delete(VaultRecord).where(VaultRecord.project_id == project.id))
    db.session.execute(delete(AssignmentPair).where(AssignmentPair.assignment_id.in_(assignments)))
    pairs = select(Pair.id).where(Pair.project_id.in_(projects)).scalar_subquery()
    db.session.execute(
        delete(ConflictResolution).where(ConflictResolution.pair_id.in_(pairs)),
        execution_options={"synchronize_session": False},
    )
    db.session.execute(delete(Pair).where(Pair.project_id.in_(projects)))
    project_id = project.id
    db.session.delete(project)
    db.session.flush()
    remove_project_files(project_id)
