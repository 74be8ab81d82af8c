"""The end of a project: release thresholds, confirmations of exports above them, the close-out."""

from __future__ import annotations

import datetime as dt

from sqlalchemy import JSON, BigInteger, CheckConstraint, DateTime, ForeignKey, String, Text
from sqlalchemy.orm import Mapped, mapped_column

from app.extensions import db
from app.models.base import forbid_updates, utcnow


class ReleasePolicy(db.Model):
    """How a project's ``linked`` export is checked before it leaves (docs/release-risk.md).

    The check's parameters (quasi-identifiers, sensitive columns, population, convention) and
    the limits; an export above a limit needs a recorded :class:`ReleaseConfirmation`
    (``on_exceed = confirm``) or is refused (``refuse``). A limit left None is not checked.
    """

    __tablename__ = "release_policies"
    __table_args__ = (
        CheckConstraint("on_exceed IN ('confirm', 'refuse')", name="on_exceed_known"),
        CheckConstraint("suppressed IN ('exclude', 'wildcard')", name="suppressed_known"),
        CheckConstraint("threshold > 0 AND threshold <= 1", name="threshold_in_range"),
        CheckConstraint("min_k IS NULL OR min_k >= 1", name="min_k_positive"),
        CheckConstraint("min_l IS NULL OR min_l >= 1", name="min_l_positive"),
    )

    id: Mapped[int] = mapped_column(primary_key=True)
    project_id: Mapped[int] = mapped_column(
        ForeignKey("projects.id", ondelete="CASCADE"), unique=True
    )
    qi: Mapped[str | None] = mapped_column(String(5100))  # comma-separated; None: roles
    sensitive: Mapped[str | None] = mapped_column(String(5100))
    population: Mapped[int | None] = mapped_column(BigInteger)
    suppressed: Mapped[str] = mapped_column(String(10), default="exclude")
    missing: Mapped[str] = mapped_column(String(20), default="*")
    threshold: Mapped[float] = mapped_column(default=0.2)
    min_k: Mapped[int | None]
    max_records_at_risk: Mapped[float | None]
    max_average_risk: Mapped[float | None]
    min_l: Mapped[int | None]
    on_exceed: Mapped[str] = mapped_column(String(8), default="confirm")
    updated_by: Mapped[int | None] = mapped_column(ForeignKey("users.id"))
    updated_at: Mapped[dt.datetime] = mapped_column(DateTime(timezone=True), default=utcnow)


class ReleaseConfirmation(db.Model):
    """A manager took the linked export although it was above the thresholds (append-only).

    ``exceeded`` says which limits and by how much (measures only, never a record value).
    """

    __tablename__ = "release_confirmations"

    id: Mapped[int] = mapped_column(primary_key=True)
    project_id: Mapped[int] = mapped_column(
        ForeignKey("projects.id", ondelete="CASCADE"), index=True
    )
    confirmed_by: Mapped[int] = mapped_column(ForeignKey("users.id"))
    at: Mapped[dt.datetime] = mapped_column(DateTime(timezone=True), default=utcnow)
    reason: Mapped[str] = mapped_column(Text)
    exceeded: Mapped[str] = mapped_column(Text)


forbid_updates(ReleaseConfirmation)


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


class StorageErasure(db.Model):
    """One pass over the database files after a close-out (append-only; the newest counts).

    The close-out's rows are deleted in its transaction; what makes their bytes unreadable on
    disk runs after its commit (``app.projects.custody.erasure``): ``complete`` says it did,
    ``detail`` what was done per database or why it waits (``pending``), and what lies beyond
    the application's reach (``beyond_reach``). Never a value.
    """

    __tablename__ = "storage_erasures"

    id: Mapped[int] = mapped_column(primary_key=True)
    project_id: Mapped[int] = mapped_column(
        ForeignKey("projects.id", ondelete="CASCADE"), index=True
    )
    at: Mapped[dt.datetime] = mapped_column(DateTime(timezone=True), default=utcnow)
    complete: Mapped[bool] = mapped_column(default=False)
    detail: Mapped[dict] = mapped_column(JSON)


forbid_updates(StorageErasure)
