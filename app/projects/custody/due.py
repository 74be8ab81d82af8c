"""Automatic close-out: projects whose ``auto_close_days`` have passed since completion."""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass
from pathlib import Path

from sqlalchemy import select

from app.extensions import db
from app.models import CloseOut, Project, ProjectState
from app.models.base import utcnow
from app.projects.custody.archive import write_exports
from app.projects.custody.closeout import close_project, completed_at, final_exports

__all__ = ["ClosedDue", "close_due", "due_projects", "set_auto_close"]


@dataclass(frozen=True)
class ClosedDue:
    """One automatic close-out and where its final exports were written."""

    closeout: CloseOut
    directory: Path


def set_auto_close(project: Project, days: int | None) -> None:
    """Close ``project`` automatically ``days`` after completion (None: never)."""
    if days is not None and (isinstance(days, bool) or not isinstance(days, int) or days < 0):
        raise ValueError("the days after completion are a whole number from 0, or none")
    project.auto_close_days = days


def due_projects(now: dt.datetime | None = None) -> list[Project]:
    """Open projects with ``auto_close_days`` set whose completion is that many days past."""
    now = now or utcnow()
    candidates = db.session.scalars(
        select(Project)
        .where(
            Project.state == ProjectState.READY.value,
            Project.closed_at.is_(None),
            Project.auto_close_days.is_not(None),
        )
        .order_by(Project.id)
    )
    due = []
    for project in candidates:
        done = completed_at(project)
        if done is not None and done + dt.timedelta(days=project.auto_close_days) <= now:
            due.append(project)
    return due


def close_due(archive: Path, now: dt.datetime | None = None) -> list[ClosedDue]:
    """Close every due project, its final exports written to ``archive/project_<id>/``
    first (the custodian's copy). Flushes each; the caller commits."""
    done = []
    for project in due_projects(now):
        files = final_exports(project)
        directory = write_exports(files, Path(archive) / f"project_{project.id}")
        done.append(ClosedDue(close_project(project, None, files=files), directory))
    return done
