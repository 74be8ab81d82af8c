"""Long-running jobs (imports, batch reports): their state and progress live here."""

from __future__ import annotations

import datetime as dt

from sqlalchemy import JSON, DateTime, ForeignKey, String, Text
from sqlalchemy.orm import Mapped, mapped_column

from app.extensions import db
from app.models.base import Timestamped, utcnow


class Job(Timestamped, db.Model):
    __tablename__ = "jobs"

    id: Mapped[int] = mapped_column(primary_key=True)
    kind: Mapped[str] = mapped_column(String(40))
    # queued | running | done | failed | cancelled
    status: Mapped[str] = mapped_column(String(12), default="queued")
    progress_done: Mapped[int] = mapped_column(default=0)
    progress_total: Mapped[int] = mapped_column(default=0)
    result: Mapped[dict | None] = mapped_column(JSON)
    error: Mapped[str | None] = mapped_column(Text)
    created_by: Mapped[int | None] = mapped_column(ForeignKey("users.id", ondelete="SET NULL"))
    # host:pid of the process that queued or runs the job, and its last sign of life: a
    # restart fails jobs whose owner is gone (app.jobs.reconcile_stale_jobs)
    owner: Mapped[str | None] = mapped_column(String(120))
    heartbeat_at: Mapped[dt.datetime | None] = mapped_column(DateTime(timezone=True))
    updated_at: Mapped[dt.datetime] = mapped_column(
        DateTime(timezone=True), default=utcnow, onupdate=utcnow
    )
