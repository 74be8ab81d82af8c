"""Every pair's final decision and who made it, computed by the database in one query.

The final linkage combines two kinds of decision (``docs/triage.md``, Provenance):

- people's: the manager's newest resolution of a conflict (``manager``), else the majority
  of the reviewers' current answers (``reviewers``): exactly
  :func:`~app.projects.progress.agreement.consensus` over
  :func:`~app.projects.progress.outcomes.outcomes`, as SQL aggregates;
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
    CLEARED,
    Assignment,
    AssignmentPair,
    ConflictResolution,
    DecisionEvent,
    Pair,
    PairAnswers,
    Record,
    Source,
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
    joined: object  # the FROM clause: pairs left-joined to answers and resolutions

    def query(self, project_id: int, *columns) -> Select:
        """``SELECT columns`` over the project's pairs joined to their answers, by pair id."""
        return (
            select(*columns)
            .select_from(self.joined)
            .where(Pair.project_id == project_id)
            .order_by(Pair.id)
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


def _answers(project_id: int):
    """Per pair: its current answers (a reviewer's newest event, unless it is a clear)."""
    reviewers = select(Assignment.id).where(
        Assignment.project_id == project_id, Assignment.resolver.is_(False)
    )
    newest = (
        select(func.max(DecisionEvent.id))
        .where(DecisionEvent.assignment_id.in_(reviewers))
        .group_by(DecisionEvent.assignment_id, DecisionEvent.pair_id)
    )
    current = (
        select(DecisionEvent.pair_id, DecisionEvent.decision)
        .where(DecisionEvent.id.in_(newest), DecisionEvent.decision != CLEARED)
        .subquery()
    )

    def count(label: str):
        return func.sum(case((current.c.decision == label, 1), else_=0))

    return (
        select(
            current.c.pair_id,
            func.count().label("answers"),
            count("same").label("same"),
            count("different").label("different"),
            count("unsure").label("unsure"),
        )
        .group_by(current.c.pair_id)
        .subquery()
    )


def _resolutions(project_id: int):
    """Per pair: the manager's newest resolution."""
    newest = (
        select(func.max(ConflictResolution.id))
        .join(Pair, Pair.id == ConflictResolution.pair_id)
        .where(Pair.project_id == project_id)
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
    answers, resolutions = _answers(project_id), _resolutions(project_id)
    n = func.coalesce(answers.c.answers, 0)
    same = func.coalesce(answers.c.same, 0)
    different = func.coalesce(answers.c.different, 0)
    unsure = func.coalesce(answers.c.unsure, 0)
    human = case(
        (resolutions.c.decision.is_not(None), resolutions.c.decision),
        (2 * same > n, literal("same")),
        (2 * different > n, literal("different")),
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
    joined = Pair.__table__.outerjoin(answers, answers.c.pair_id == Pair.id).outerjoin(
        resolutions, resolutions.c.pair_id == Pair.id
    )
    return Finals(decision, decided_by, human, n, same, different, unsure, joined)
