"""Assignments of pairs to workers, with their budget and disclosure state."""

from __future__ import annotations

from sqlalchemy import JSON, CheckConstraint, ForeignKey, String, UniqueConstraint
from sqlalchemy.orm import Mapped, mapped_column, relationship

from app.extensions import db
from app.models.base import Timestamped


class Assignment(Timestamped, db.Model):
    """A worker's share of a project: pairs, a KAPR budget and the KAPR spent so far.

    ``kapr_exact`` holds the score as a fraction string (``"7/108"``); ``kapr`` is its float
    for sorting and display. ``version`` increases with every change of state so concurrent
    writers are detected.
    """

    __tablename__ = "assignments"
    __table_args__ = (
        # A worker may hold one assignment per round of a project: a new round is new work
        # with its own budget and meters, the earlier assignments unchanged.
        UniqueConstraint("project_id", "worker_id", "round"),
        CheckConstraint("budget >= 0", name="budget_non_negative"),
    )

    id: Mapped[int] = mapped_column(primary_key=True)
    project_id: Mapped[int] = mapped_column(
        ForeignKey("projects.id", ondelete="CASCADE"), index=True
    )
    worker_id: Mapped[int] = mapped_column(ForeignKey("users.id"), index=True)
    budget: Mapped[float]
    kapr_exact: Mapped[str] = mapped_column(String(200), default="0")
    kapr: Mapped[float] = mapped_column(default=0.0)
    version: Mapped[int] = mapped_column(default=1)
    # The characters meter: characters disclosed so far over all characters of the pairs.
    chars_disclosed: Mapped[int] = mapped_column(default=0)
    chars_total: Mapped[int] = mapped_column(default=0)
    # Identifying attributes whose cells start at partial (charged as the starting KAPR).
    start_partial: Mapped[list] = mapped_column(JSON, default=list)
    # A manager's own assignment for revealing values of conflicts they resolve: budgeted
    # like a worker's, but its answers are not reviews.
    resolver: Mapped[bool] = mapped_column(default=False)
    # The round of pairs it was made for (``Pair.round``).
    round: Mapped[int] = mapped_column(default=1, server_default="1")

    project = relationship("Project")
    worker = relationship("User")
    pairs: Mapped[list[AssignmentPair]] = relationship(
        cascade="all, delete-orphan", passive_deletes=True, order_by="AssignmentPair.position"
    )


class AssignmentPair(db.Model):
    __tablename__ = "assignment_pairs"
    __table_args__ = (UniqueConstraint("assignment_id", "position"),)

    assignment_id: Mapped[int] = mapped_column(
        ForeignKey("assignments.id", ondelete="CASCADE"), primary_key=True
    )
    pair_id: Mapped[int] = mapped_column(
        ForeignKey("pairs.id", ondelete="CASCADE"), primary_key=True
    )
    position: Mapped[int]

    pair = relationship("Pair")


class CellState(db.Model):
    """The stored display level of one cell; a cell with no row is masked."""

    __tablename__ = "cell_states"
    __table_args__ = (UniqueConstraint("assignment_id", "pair_id", "row", "attribute_id"),)

    id: Mapped[int] = mapped_column(primary_key=True)
    assignment_id: Mapped[int] = mapped_column(
        ForeignKey("assignments.id", ondelete="CASCADE"), index=True
    )
    pair_id: Mapped[int] = mapped_column(ForeignKey("pairs.id", ondelete="CASCADE"))
    row: Mapped[int]
    attribute_id: Mapped[int] = mapped_column(
        ForeignKey("project_attributes.id", ondelete="CASCADE")
    )
    level: Mapped[str] = mapped_column(String(8))
