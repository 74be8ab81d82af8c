"""Long-running jobs (imports, batch reports): their state and progress live here."""

from __future__ import annotations

import datetime as dt

from sqlalchemy import JSON, DateTime, ForeignKey, Index, LargeBinary, String, Text
from sqlalchemy.orm import Mapped, mapped_column

from app.extensions import db
from app.models.base import Timestamped, utcnow


class Job(Timestamped, db.Model):
    __tablename__ = "jobs"
    __table_args__ = (Index("ix_jobs_status_id", "status", "id"),)  # the workers' claim

    id: Mapped[int] = mapped_column(primary_key=True)
    kind: Mapped[str] = mapped_column(String(40))
    # queued | running | done | failed | cancelled
    status: Mapped[str] = mapped_column(String(12), default="queued")
    progress_done: Mapped[int] = mapped_column(default=0)
    progress_total: Mapped[int] = mapped_column(default=0)
    # What the job is doing now, in words (a running job's step; a queued one's wait)
    step: Mapped[str | None] = mapped_column(String(200))
    result: Mapped[dict | None] = mapped_column(JSON)
    error: Mapped[str | None] = mapped_column(Text)
    created_by: Mapped[int | None] = mapped_column(ForeignKey("users.id", ondelete="SET NULL"))
    # host:pid of the process that queued or runs the job, and its last sign of life: a
    # restart fails jobs whose owner is gone (app.jobs.reconcile_stale_jobs)
    owner: Mapped[str | None] = mapped_column(String(120))
    heartbeat_at: Mapped[dt.datetime | None] = mapped_column(DateTime(timezone=True))
    # JOBS_EXECUTOR=queue: the job function (``module:name``) and its arguments (a pickle of
    # plain values, app.jobs.queue) wait here for `flask jobs worker`; the arguments are
    # cleared when the job ends. A job stopped with its worker runs again while attempts is
    # below max_attempts (a pure job's), else it fails with the reason.
    target: Mapped[str | None] = mapped_column(String(200))
    payload: Mapped[bytes | None] = mapped_column(LargeBinary)
    attempts: Mapped[int] = mapped_column(default=0, server_default="0")
    max_attempts: Mapped[int] = mapped_column(default=1, server_default="1")
    updated_at: Mapped[dt.datetime] = mapped_column(
        DateTime(timezone=True), default=utcnow, onupdate=utcnow
    )
