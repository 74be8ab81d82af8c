"""Delete a project and everything of it."""

from __future__ import annotations

from sqlalchemy import delete

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
    project_id = project.id
    db.session.delete(project)
    db.session.flush()
    remove_project_files(project_id)
