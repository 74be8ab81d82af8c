"""Managers' records: name frequencies, budgets, conflicts, known-truth checks and alerts."""

from __future__ import annotations

import datetime as dt
import enum

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
    pair_id: Mapped[int] = mapped_column(index=True)
    resolved_by: Mapped[int] = mapped_column(ForeignKey("users.id"))
    at: Mapped[dt.datetime] = mapped_column(DateTime(timezone=True), default=utcnow)
    decision: Mapped[str] = mapped_column(String(12))  # same | different
    confidence: Mapped[str | None] = mapped_column(String(8))


class ConflictReferral(db.Model):
    """A conflict a manager handed to an additional reviewer (append-only)."""

    __tablename__ = "conflict_referrals"
    __table_args__ = (UniqueConstraint("pair_id", "assignment_id"),)

    id: Mapped[int] = mapped_column(primary_key=True)
    pair_id: Mapped[int] = mapped_column(index=True)
    assignment_id: Mapped[int] = mapped_column(
        ForeignKey("assignments.id", ondelete="CASCADE"), index=True
    )
    referred_by: Mapped[int] = mapped_column(ForeignKey("users.id"))
    at: Mapped[dt.datetime] = mapped_column(DateTime(timezone=True), default=utcnow)


class CheckSource(enum.StrEnum):
    """Where a known-truth check comes from (docs/quality.md)."""

    SYNTHETIC = "synthetic"  # made by the generator: nobody real, charged to no KAPR
    TRUTH = "truth"  # a real pair whose answer the project holds: charged as usual


class QualityCheck(db.Model):
    """One known-truth check in one assignment: the pair and the answer it should get.

    A synthetic check's pair and records belong to the project's checks project
    (``Project.checks_of``); a truth check's pair is one of the project's own. Never shown
    to the worker, who sees the pair as any other.
    """

    __tablename__ = "quality_checks"
    __table_args__ = (
        UniqueConstraint("assignment_id", "pair_id"),
        CheckConstraint("source IN ('synthetic', 'truth')", name="source_known"),
        CheckConstraint("expected IN ('same', 'different')", name="expected_known"),
    )

    id: Mapped[int] = mapped_column(primary_key=True)
    project_id: Mapped[int] = mapped_column(
        ForeignKey("projects.id", ondelete="CASCADE"), index=True
    )
    assignment_id: Mapped[int] = mapped_column(
        ForeignKey("assignments.id", ondelete="CASCADE"), index=True
    )
    pair_id: Mapped[int] = mapped_column()
    source: Mapped[str] = mapped_column(String(12))
    expected: Mapped[str] = mapped_column(String(12))


class ReviewerAlert(db.Model):
    """The sequential rule flagged a reviewer's assignment (append-only).

    ``after_decisions`` is the number of the reviewer's decisions when it was raised; the
    evidence (checks answered, wrong) and the rule's statistic are kept as they were.
    """

    __tablename__ = "reviewer_alerts"

    id: Mapped[int] = mapped_column(primary_key=True)
    project_id: Mapped[int] = mapped_column(
        ForeignKey("projects.id", ondelete="CASCADE"), index=True
    )
    assignment_id: Mapped[int] = mapped_column(
        ForeignKey("assignments.id", ondelete="CASCADE"), index=True
    )
    worker_id: Mapped[int] = mapped_column(ForeignKey("users.id"))
    at: Mapped[dt.datetime] = mapped_column(DateTime(timezone=True), default=utcnow)
    rule: Mapped[str] = mapped_column(String(16))
    threshold: Mapped[float]
    after_decisions: Mapped[int]
    checks: Mapped[int]
    wrong: Mapped[int]
    statistic: Mapped[float]


class AlertAction(db.Model):
    """What the manager did about an alert (append-only): the newest action is its state.

    ``pause`` and ``resume`` the assignment, ``reassign`` its decided pairs to another
    reviewer's assignment (``to_assignment_id``), ``dismiss`` the alert.
    """

    __tablename__ = "alert_actions"
    __table_args__ = (
        CheckConstraint(
            "action IN ('pause', 'resume', 'reassign', 'dismiss')", name="action_known"
        ),
    )

    id: Mapped[int] = mapped_column(primary_key=True)
    alert_id: Mapped[int] = mapped_column(
        ForeignKey("reviewer_alerts.id", ondelete="CASCADE"), index=True
    )
    action: Mapped[str] = mapped_column(String(12))
    by: Mapped[int] = mapped_column(ForeignKey("users.id"))
    at: Mapped[dt.datetime] = mapped_column(DateTime(timezone=True), default=utcnow)
    to_assignment_id: Mapped[int | None] = mapped_column(
        ForeignKey("assignments.id", ondelete="SET NULL")
    )
    pairs: Mapped[int | None]  # pairs sent on by a reassignment


forbid_updates(BudgetChange)
forbid_updates(ConflictReferral)
forbid_updates(ConflictResolution)
forbid_updates(ReviewerAlert)
forbid_updates(AlertAction)
