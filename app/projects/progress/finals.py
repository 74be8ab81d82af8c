"""Every pair's final decision and who made it, computed by the database in one query.

The final linkage combines two kinds of decision (``docs/triage.md``, Provenance):

- people's: the manager's newest resolution of a conflict (``manager``), else the majority
  of the reviewers' current answers (``reviewers``): exactly
  :func:`~app.projects.progress.agreement.consensus` over
  :func:`~app.projects.progress.outcomes.outcomes`, as SQL over the answers the database
  keeps per pair (:class:`~app.models.PairAnswers`, one row looked up by pair id: no
  aggregate over the decision events);
- the model's: ``Pair.model_decision``, set by the triage thresholds outside the band
  (``model``), which stands until people decide the pair (a calibration pair outside the
  band keeps it as the fallback).

A model decision is never an answer: it lives on the pair, not among the decision events.
:func:`final_columns` gives the SQL expressions for ``decision`` (``match``/``non_match``),
``decided_by`` and the answer counts, to select, filter or count by, over any set of pairs.
"""

from __future__ import annotations

from dataclasses import dataclass

from sqlalchemy import ColumnElement, Select, and_, case, func, literal, select
from sqlalchemy.orm import aliased

from app.extensions import db
from app.models import (
    BY_ID,
    Assignment,
    AssignmentPair,
    ConflictResolution,
    Pair,
    PairAnswers,
    Record,
    Source,
    reviewed_pairs,
)

__all__ = [
    "RECORD_COLUMNS",
    "STATUSES",
    "Finals",
    "disputed_pairs",
    "final_columns",
    "with_records",
]

#: The columns :func:`with_records` adds, in order.
RECORD_COLUMNS = ("source_a", "a", "source_b", "b")
#: Pair statuses a listing may filter by.
STATUSES = ("decided", "undecided", "conflict", "unassigned", "model")
MATCH, NON_MATCH = "match", "non_match"


@dataclass(frozen=True)
class Finals:
    """SQL expressions over ``Pair`` for a project's query, with their joins in ``joined``."""

    decision: ColumnElement
    decided_by: ColumnElement
    human: ColumnElement  # people's decision: same | different | None
    answers: ColumnElement
    same: ColumnElement
    different: ColumnElement
    unsure: ColumnElement
    joined: object  # the FROM clause: pairs left-joined to pair_answers and resolutions

    def query(self, project_id: int, *columns) -> Select:
        """``SELECT columns`` over the project's pairs joined to their answers, by pair id."""
        return (
            select(*columns)
            .select_from(self.joined)
            .where(Pair.project_id == project_id)
            .order_by(Pair.id)
        )

    def reviewed(self, project_id: int, *columns, purposes=None) -> Select:
        """:meth:`query` over the pairs to review only (of ``purposes``, else all), read
        through their own index (:func:`~app.models.reviewed_pairs`), not the model's pairs'."""
        return (
            select(*columns)
            .select_from(self.joined)
            .where(*reviewed_pairs(project_id, purposes))
            .order_by(BY_ID)
        )

    def status(self, name: str, project_id: int) -> ColumnElement[bool]:
        """The condition of status ``name`` (:data:`STATUSES`)."""
        if name == "decided":
            return self.decision.is_not(None)
        if name == "undecided":
            return self.decision.is_(None)
        if name == "model":
            return and_(self.human.is_(None), Pair.model_decision.is_not(None))
        if name == "conflict":
            kinds = (
                case((self.same > 0, 1), else_=0)
                + case((self.different > 0, 1), else_=0)
                + case((self.unsure > 0, 1), else_=0)
            )
            return and_(kinds > 1, self.human.is_(None))
        if name == "unassigned":
            assigned = (
                select(AssignmentPair.pair_id)
                .join(Assignment, Assignment.id == AssignmentPair.assignment_id)
                .where(Assignment.project_id == project_id, Assignment.resolver.is_(False))
            )
            return and_(Pair.purpose != "model", Pair.id.not_in(assigned))
        raise ValueError(f"status must be one of {', '.join(STATUSES)}")


def with_records(query: Select) -> Select:
    """``query`` (over ``pairs``) with :data:`RECORD_COLUMNS` added: each record's source name
    (the linker's, as imported, else the label) and its id as uploaded."""
    ra, rb, sa, sb = aliased(Record), aliased(Record), aliased(Source), aliased(Source)
    return (
        query.add_columns(
            func.coalesce(sa.dataset, sa.label).label("source_a"), ra.external_id.label("a"),
            func.coalesce(sb.dataset, sb.label).label("source_b"), rb.external_id.label("b"),
        )
        .join(ra, ra.id == Pair.record_a_id)
        .join(rb, rb.id == Pair.record_b_id)
        .join(sa, sa.id == ra.source_id)
        .join(sb, sb.id == rb.source_id)
    )  # fmt: skip


def _resolutions(project_id: int):
    """Per pair: the manager's newest resolution."""
    newest = (
        select(func.max(ConflictResolution.id))
        .join(Pair, Pair.id == ConflictResolution.pair_id)
        .where(Pair.project_id + 0 == project_id)  # read the few resolutions, not the pairs
        .group_by(ConflictResolution.pair_id)
    )
    return (
        select(
            ConflictResolution.pair_id,
            ConflictResolution.decision,
            ConflictResolution.confidence,
        )
        .where(ConflictResolution.id.in_(newest))
        .subquery()
    )


def disputed_pairs(project_id: int) -> list[int]:
    """The pairs whose reviewers' current answers differ (settled or not), by id: read from
    the answers the database keeps per pair (:class:`~app.models.PairAnswers`), so only
    those pairs' outcomes are built in Python."""
    kinds = (
        case((PairAnswers.same > 0, 1), else_=0)
        + case((PairAnswers.different > 0, 1), else_=0)
        + case((PairAnswers.unsure > 0, 1), else_=0)
    )
    return list(
        db.session.scalars(
            select(PairAnswers.pair_id)
            .where(PairAnswers.project_id == project_id, PairAnswers.answers > 1, kinds > 1)
            .order_by(PairAnswers.pair_id)
        )
    )


def final_columns(project_id: int) -> Finals:
    """The final-decision expressions of ``project_id``'s pairs (see the module docstring)."""
    resolutions = _resolutions(project_id)
    n = func.coalesce(PairAnswers.answers, 0)
    due = func.coalesce(PairAnswers.due, 0)
    slots = case((due > n, due), else_=n)  # the pair's reviewers (at least those who answered)
    same = func.coalesce(PairAnswers.same, 0)
    different = func.coalesce(PairAnswers.different, 0)
    unsure = func.coalesce(PairAnswers.unsure, 0)
    human = case(
        (resolutions.c.decision.is_not(None), resolutions.c.decision),
        (2 * same > slots, literal("same")),
        (2 * different > slots, literal("different")),
        else_=None,
    )
    decision = case(
        (human == "same", literal(MATCH)),
        (human == "different", literal(NON_MATCH)),
        else_=Pair.model_decision,
    )
    decided_by = case(
        (resolutions.c.decision.is_not(None), literal("manager")),
        (human.is_not(None), literal("reviewers")),
        (Pair.model_decision.is_not(None), literal("model")),
        else_=None,
    )
    joined = Pair.__table__.outerjoin(PairAnswers, PairAnswers.pair_id == Pair.id).outerjoin(
        resolutions, resolutions.c.pair_id == Pair.id
    )
    return Finals(decision, decided_by, human, n, same, different, unsure, joined)
