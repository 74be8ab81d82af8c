"""A project's close-out: who closed it, when, what was destroyed, the final exports' hashes."""

from __future__ import annotations

import datetime as dt

from sqlalchemy import JSON, DateTime, ForeignKey
from sqlalchemy.orm import Mapped, mapped_column

from app.extensions import db
from app.models.base import forbid_updates, utcnow


class CloseOut(db.Model):
    """The record of one project's close-out (append-only; at most one per project).

    ``destroyed`` counts what went (records' identifying values, vault rows, name counts,
    files); ``exports`` maps each final export's file name to its SHA-256 and size, as they
    were produced just before the values were destroyed. ``closed_by`` is None for an
    automatic close-out (``auto_close_days`` on the project).
    """

    __tablename__ = "project_closeouts"

    id: Mapped[int] = mapped_column(primary_key=True)
    project_id: Mapped[int] = mapped_column(
        ForeignKey("projects.id", ondelete="CASCADE"), unique=True
    )
    closed_by: Mapped[int | None] = mapped_column(ForeignKey("users.id"))
    at: Mapped[dt.datetime] = mapped_column(DateTime(timezone=True), default=utcnow)
    automatic: Mapped[bool] = mapped_column(default=False)
    destroyed: Mapped[dict] = mapped_column(JSON)
    exports: Mapped[dict] = mapped_column(JSON)


forbid_updates(CloseOut)
