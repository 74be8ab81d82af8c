"""Managers' records: name frequencies, pair-file ids, budget changes, conflict resolutions."""

from __future__ import annotations

import datetime as dt

from sqlalchemy import CheckConstraint, DateTime, ForeignKey, String, UniqueConstraint
from sqlalchemy.orm import Mapped, mapped_column

from app.extensions import db
from app.models.base import forbid_updates, utcnow


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


class PairFileKey(db.Model):
    """A pair's ``PairID`` and record ``ID`` s as its MINDFIRL pair file gave them.

    A pair file may repeat a record pair (the demo shows one pair in several blocks) while
    ``pairs`` holds a record pair once, so a repeat is stored against a copy of record A
    (external id ``ID@PairID``); the exports read the original ids from here.
    """

    __tablename__ = "pair_file_keys"

    pair_id: Mapped[int] = mapped_column(
        ForeignKey("pairs.id", ondelete="CASCADE"), primary_key=True
    )
    external_id: Mapped[str] = mapped_column(String(100))
    id_a: Mapped[str] = mapped_column(String(100))
    id_b: Mapped[str] = mapped_column(String(100))


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


forbid_updates(BudgetChange)
forbid_updates(ConflictResolution)
