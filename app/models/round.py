"""Rounds: the numbered batches of pairs a project receives, and how each was triaged."""

from __future__ import annotations

import datetime as dt

from sqlalchemy import JSON, DateTime, ForeignKey, String, UniqueConstraint
from sqlalchemy.orm import Mapped, mapped_column

from app.extensions import db
from app.models.base import forbid_updates, utcnow


class Round(db.Model):
    """One batch of pairs added to a project, with the provenance of its model decisions.

    Append-only: the thresholds, the score they were applied to, the calibration draw (size,
    seed, match-weight bins with their populations and draws) and the counts that resulted
    are what a model decision of this round rests on. ``origin`` says where the pairs came
    from: ``scores`` (a linker's scored pairs), ``pairs`` (unscored pairs), ``blocking`` (our
    rules) or ``reblock`` (our rules over one representative per current cluster).
    """

    __tablename__ = "rounds"
    __table_args__ = (UniqueConstraint("project_id", "number"),)

    id: Mapped[int] = mapped_column(primary_key=True)
    project_id: Mapped[int] = mapped_column(
        ForeignKey("projects.id", ondelete="CASCADE"), index=True
    )
    number: Mapped[int]
    origin: Mapped[str] = mapped_column(String(12))
    created_by: Mapped[int] = mapped_column(ForeignKey("users.id"))
    at: Mapped[dt.datetime] = mapped_column(DateTime(timezone=True), default=utcnow)
    filename: Mapped[str | None] = mapped_column(String(255))
    # The triage (None when the round was not triaged): thresholds, score, order, draw.
    triage: Mapped[dict | None] = mapped_column(JSON)
    # Pairs by outcome: above, inside, below, calibration, review, model_match, ...
    counts: Mapped[dict] = mapped_column(JSON, default=dict)


forbid_updates(Round)
