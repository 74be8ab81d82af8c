"""Managers' records: name frequencies, budget changes, conflict referrals and resolutions."""

from __future__ import annotations

import datetime as dt

from sqlalchemy import CheckConstraint, DateTime, ForeignKey, String, UniqueConstraint
from sqlalchemy.orm import Mapped, mapped_column

from app.extensions import db
from app.models.base import forbid_updates, no_statistics, utcnow


class NameFrequency(db.Model):
    """How many people carry a first (``F``) or last (``L``) name, from the upload."""

    __tablename__ = "name_frequencies"
    __table_args__ = (
        UniqueConstraint("project_id", "kind", "name"),
        CheckConstraint("kind IN ('F', 'L')", name="kind_f_or_l"),
        CheckConstraint("count >= 0", name="count_non_negative"),
    )

    id: Mapped[int] = mapped_column(primary_key=True)
    project_id: Mapped[int] = mapped_column(
        ForeignKey("projects.id", ondelete="CASCADE"), index=True
    )
    kind: Mapped[str] = mapped_column(String(1))
    name: Mapped[str] = mapped_column(String(200))
    count: Mapped[int]


no_statistics(NameFrequency, "name")


class BudgetChange(db.Model):
    """One change of an assignment's KAPR budget by a manager (append-only)."""

    __tablename__ = "budget_changes"

    id: Mapped[int] = mapped_column(primary_key=True)
    assignment_id: Mapped[int] = mapped_column(
        ForeignKey("assignments.id", ondelete="CASCADE"), index=True
    )
    changed_by: Mapped[int] = mapped_column(ForeignKey("users.id"))
    at: Mapped[dt.datetime] = mapped_column(DateTime(timezone=True), default=utcnow)
    budget_before: Mapped[float]
    budget_after: Mapped[float]


class ConflictResolution(db.Model):
    """A manager's decision for a pair double-coders disagreed on; the newest one counts."""

    __tablename__ = "conflict_resolutions"

    id: Mapped[int] = mapped_column(primary_key=True)
    pair_id: Mapped[int] = mapped_column(ForeignKey("pairs.id", ondelete="CASCADE"), index=True)
    resolved_by: Mapped[int] = mapped_column(ForeignKey("users.id"))
    at: Mapped[dt.datetime] = mapped_column(DateTime(timezone=True), default=utcnow)
    decision: Mapped[str] = mapped_column(String(12))  # same | different
    confidence: Mapped[str | None] = mapped_column(String(8))


class ConflictReferral(db.Model):
    """A conflict a manager handed to an additional reviewer (append-only)."""

    __tablename__ = "conflict_referrals"
    __table_args__ = (UniqueConstraint("pair_id", "assignment_id"),)

    id: Mapped[int] = mapped_column(primary_key=True)
    pair_id: Mapped[int] = mapped_column(ForeignKey("pairs.id", ondelete="CASCADE"), index=True)
    assignment_id: Mapped[int] = mapped_column(
        ForeignKey("assignments.id", ondelete="CASCADE"), index=True
    )
    referred_by: Mapped[int] = mapped_column(ForeignKey("users.id"))
    at: Mapped[dt.datetime] = mapped_column(DateTime(timezone=True), default=utcnow)


forbid_updates(BudgetChange)
forbid_updates(ConflictReferral)
forbid_updates(ConflictResolution)
