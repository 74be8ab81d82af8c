"""Delete a project and everything of it."""

from __future__ import annotations

from sqlalchemy import delete, select

from app.extensions import db
from app.models import Pair, Project, VaultRecord

__all__ = ["delete_project"]


def delete_project(project: Project) -> None:
    """Delete a project and everything of it, vault rows and scored pairs' files included.
    The caller commits."""
    from app.projects.scoring.service import remove_project_files

    db.session.execute(delete(VaultRecord).where(VaultRecord.project_id == project.id))
    # pairs have no key to their project (``app.models.pair``): they go first, and the rows
    # that hold a pair (assignments' pairs, answers, reveals) go with them by their keys
    db.session.execute(delete(Pair).where(Pair.project_id == project.id))
    # its synthetic checks' pairs too; their project and records go by its key (checks_of)
    checks = select(Project.id).where(Project.checks_of == project.id)
    db.session.execute(delete(Pair).where(Pair.project_id.in_(checks)))
    project_id = project.id
    db.session.delete(project)
    db.session.flush()
    remove_project_files(project_id)
