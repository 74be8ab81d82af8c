"""Assignments of pairs to workers, with their budget and disclosure state."""

from __future__ import annotations

from sqlalchemy import (
    JSON,
    BigInteger,
    CheckConstraint,
    ForeignKey,
    Index,
    String,
    UniqueConstraint,
    false,
    text,
)
from sqlalchemy.orm import Mapped, mapped_column, relationship

from app.extensions import db
from app.models.base import Timestamped

HANDLED = {f"{engine}_where": text("handle IS NOT NULL") for engine in ("sqlite", "postgresql")}


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
    # Known-truth checks (docs/quality.md): the share asked for and where they come from
    # (None: no checks), how many of the pairs are synthetic checks, and the KAPR their
    # reveals added to the worker's meter. ``kapr_exact`` is the real KAPR (its N counts the
    # real rows only); the worker's meter, which the budget bounds, is the sum of both.
    check_share: Mapped[float | None]
    check_source: Mapped[str | None] = mapped_column(String(12))
    synthetic_pairs: Mapped[int] = mapped_column(default=0, server_default="0")
    checks_kapr_exact: Mapped[str] = mapped_column(String(200), default="0", server_default="0")
    # The synthetic checks' characters (``chars_*`` count the real pairs'; the meter the sum).
    checks_chars_disclosed: Mapped[int] = mapped_column(default=0, server_default="0")
    checks_chars_total: Mapped[int] = mapped_column(default=0, server_default="0")
    # Paused by the manager (an alert's action): no reveal and no answer until resumed.
    paused: Mapped[bool] = mapped_column(default=False, server_default=false())

    project = relationship("Project")
    worker = relationship("User")
    pairs: Mapped[list[AssignmentPair]] = relationship(
        # no key cascades: an assignment deleted in the session deletes its pairs here
        primaryjoin="foreign(AssignmentPair.assignment_id) == Assignment.id",
        cascade="all, delete-orphan",
        order_by="AssignmentPair.position",
    )


class AssignmentPair(db.Model):
    """A pair of an assignment, at its position in the worker's list. No foreign keys (200k
    rows: 3.0 s with their checks, 0.9 s without); ``delete_project`` deletes the rows."""

    __tablename__ = "assignment_pairs"
    __table_args__ = (
        UniqueConstraint("assignment_id", "position"),
        # An index, not a constraint: SQLite adds it without rebuilding the table. Of handles
        # only: an assignment without checks has none (its nulls: ¼ of writing its pairs).
        Index("uq_assignment_pairs_handle", "assignment_id", "handle", unique=True, **HANDLED),
    )

    assignment_id: Mapped[int] = mapped_column(primary_key=True)
    pair_id: Mapped[int] = mapped_column(primary_key=True)
    position: Mapped[int]
    # The pair's name to the worker in an assignment with checks: random, so that no pair id
    # (a check's is newer than every real pair's) tells a check from a real pair. None (every
    # pair of an assignment without checks): the worker calls the pair by its id.
    handle: Mapped[int | None] = mapped_column(BigInteger)

    pair = relationship("Pair", primaryjoin="foreign(AssignmentPair.pair_id) == Pair.id")


class CellState(db.Model):
    """The stored display level of one cell; a cell with no row is masked."""

    __tablename__ = "cell_states"
    __table_args__ = (UniqueConstraint("assignment_id", "pair_id", "row", "attribute_id"),)

    id: Mapped[int] = mapped_column(primary_key=True)
    assignment_id: Mapped[int] = mapped_column(
        ForeignKey("assignments.id", ondelete="CASCADE"), index=True
    )
    pair_id: Mapped[int] = mapped_column()
    row: Mapped[int]
    attribute_id: Mapped[int] = mapped_column(
        ForeignKey("project_attributes.id", ondelete="CASCADE")
    )
    level: Mapped[str] = mapped_column(String(8))
