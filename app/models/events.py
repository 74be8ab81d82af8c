"""Append-only audit events: every reveal and every decision is a row, never an update."""

from __future__ import annotations

import datetime as dt

from sqlalchemy import ColumnElement, DateTime, ForeignKey, Index, Select, String, func, select
from sqlalchemy.orm import Mapped, mapped_column

from app.extensions import db
from app.models.base import forbid_updates, utcnow


class RevealEvent(db.Model):
    """One reveal: who, when, which cell, the levels and the price. Never the value."""

    __tablename__ = "reveal_events"
    __table_args__ = (Index("ix_reveal_events_assignment", "assignment_id", "id"),)

    id: Mapped[int] = mapped_column(primary_key=True)
    assignment_id: Mapped[int] = mapped_column(ForeignKey("assignments.id", ondelete="CASCADE"))
    pair_id: Mapped[int] = mapped_column(ForeignKey("pairs.id", ondelete="CASCADE"))
    row: Mapped[int]
    attribute_id: Mapped[int] = mapped_column(
        ForeignKey("project_attributes.id", ondelete="CASCADE")
    )
    user_id: Mapped[int] = mapped_column(ForeignKey("users.id"))
    at: Mapped[dt.datetime] = mapped_column(DateTime(timezone=True), default=utcnow)
    level_from: Mapped[str] = mapped_column(String(8))
    level_to: Mapped[str] = mapped_column(String(8))
    cost_exact: Mapped[str] = mapped_column(String(200))
    kapr_before_exact: Mapped[str] = mapped_column(String(200))
    kapr_after_exact: Mapped[str] = mapped_column(String(200))
    kapr_after: Mapped[float]
    # Characters this reveal disclosed (the characters meter's step); None for reveals made
    # before it was recorded.
    chars: Mapped[int | None]


#: The ``decision`` of an event that clears a worker's answer: the pair is unanswered again.
CLEARED = "cleared"


class DecisionEvent(db.Model):
    """One answer for a pair; the newest event of a pair and assignment is the answer.

    An event whose ``decision`` is :data:`CLEARED` takes the answer back: while it is the
    newest, the pair has no answer. Read answers through :func:`current_answer_ids` only.
    """

    __tablename__ = "decision_events"
    __table_args__ = (Index("ix_decision_events_assignment_pair", "assignment_id", "pair_id"),)

    id: Mapped[int] = mapped_column(primary_key=True)
    assignment_id: Mapped[int] = mapped_column(ForeignKey("assignments.id", ondelete="CASCADE"))
    pair_id: Mapped[int] = mapped_column(ForeignKey("pairs.id", ondelete="CASCADE"))
    user_id: Mapped[int] = mapped_column(ForeignKey("users.id"))
    at: Mapped[dt.datetime] = mapped_column(DateTime(timezone=True), default=utcnow)
    decision: Mapped[str] = mapped_column(String(12))  # same | different | unsure | cleared
    confidence: Mapped[str | None] = mapped_column(String(8))  # high | medium | low


forbid_updates(RevealEvent)
forbid_updates(DecisionEvent)


def current_answer_ids(*where: ColumnElement[bool]) -> Select:
    """Select the ids of the current answers among the decision events matching ``where``.

    The one definition of "the answer of a pair": the newest event of each (assignment,
    pair), unless that event is a clear (then the pair is unanswered and no id is selected).
    """
    newest = (
        select(func.max(DecisionEvent.id))
        .where(*where)
        .group_by(DecisionEvent.assignment_id, DecisionEvent.pair_id)
    )
    return select(DecisionEvent.id).where(
        DecisionEvent.id.in_(newest), DecisionEvent.decision != CLEARED
    )
