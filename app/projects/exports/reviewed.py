"""The reviewed pairs with their outcomes, read by one query in pair order, a chunk at a time.

:func:`reviewed_outcomes` gives what :func:`~app.projects.exports.linkage.reviewed_pairs`
and :func:`~app.projects.progress.outcomes.outcomes` give together (each pair to review, its
reviewers' current answers in assignment order and the manager's newest resolution), but
from one query whose rows come :data:`~app.projects.exports.linkage.STREAM_ROWS` at a time
(a server-side cursor on PostgreSQL): a pair's rows are adjacent, so only the current pair is
held, never every pair's outcome.
"""

from __future__ import annotations

from collections.abc import Iterator

from sqlalchemy import and_, func, select

from app.extensions import db
from app.models import (
    REVIEWED,
    Assignment,
    AssignmentPair,
    ConflictResolution,
    DecisionEvent,
    Pair,
    Project,
    User,
    current_answer_ids,
)
from app.projects.exports import linkage
from app.projects.exports.linkage import ReviewedPair
from app.projects.progress.finals import with_records
from app.projects.progress.outcomes import Answer, PairOutcome

__all__ = ["reviewed_outcomes"]


def reviewed_outcomes(
    project: Project, purpose: str | None = None
) -> Iterator[tuple[ReviewedPair, PairOutcome]]:
    """Each pair to review (of ``purpose`` only, if given) and its outcome, in pair order."""
    pair: ReviewedPair | None = None
    outcome = PairOutcome(0)
    for row in db.session.execute(
        _query(project.id, purpose).execution_options(yield_per=linkage.STREAM_ROWS)
    ):
        (pair_id, kind, number, probability, weight, rule, assignment_id, reviewer, kapr,
         decision, confidence, at, resolved, resolution, sure, *records) = row  # fmt: skip
        if pair is None or pair.id != pair_id:
            if pair is not None:
                yield pair, outcome
            pair = ReviewedPair(pair_id, tuple(records), kind, number, probability, weight, rule)
            outcome = PairOutcome(pair_id)
            if resolved is not None:
                outcome.resolution = (resolution, sure)
        if assignment_id is not None:
            answer = Answer(assignment_id, reviewer, decision, confidence, at, kapr)
            outcome.answers.append(answer)
    if pair is not None:
        yield pair, outcome


def _query(project_id: int, purpose: str | None):
    """Pairs ⟕ their reviewers' listings ⟕ the current answers ⟕ the newest resolution,
    ordered by pair, then assignment and position (the order of
    :func:`~app.projects.progress.outcomes.outcomes`' answers)."""
    purposes = [purpose] if purpose else [p.value for p in REVIEWED]
    listed = (
        select(
            AssignmentPair.pair_id, AssignmentPair.position, Assignment.id.label("assignment"),
            User.username, Assignment.kapr,
        )
        .join(Assignment, Assignment.id == AssignmentPair.assignment_id)
        .join(User, User.id == Assignment.worker_id)
        .where(Assignment.project_id == project_id, Assignment.resolver.is_(False))
        .subquery()
    )  # fmt: skip
    in_project = select(Assignment.id).where(Assignment.project_id == project_id)
    current = (
        select(
            DecisionEvent.assignment_id, DecisionEvent.pair_id, DecisionEvent.decision,
            DecisionEvent.confidence, DecisionEvent.at,
        )
        .where(DecisionEvent.id.in_(current_answer_ids(DecisionEvent.assignment_id.in_(in_project))))
        .subquery()
    )  # fmt: skip
    newest = (
        select(func.max(ConflictResolution.id))
        .join(Pair, Pair.id == ConflictResolution.pair_id)
        .where(Pair.project_id + 0 == project_id)  # as outcomes: read the few resolutions first
        .group_by(ConflictResolution.pair_id)
    )
    resolutions = (
        select(
            ConflictResolution.pair_id, ConflictResolution.decision, ConflictResolution.confidence
        )
        .where(ConflictResolution.id.in_(newest))
        .subquery()
    )  # fmt: skip
    query = (
        select(
            Pair.id, Pair.purpose, Pair.round, Pair.match_probability, Pair.match_weight,
            Pair.rule, listed.c.assignment, listed.c.username, listed.c.kapr,
            current.c.decision, current.c.confidence, current.c.at, resolutions.c.pair_id,
            resolutions.c.decision, resolutions.c.confidence,
        )
        .select_from(Pair)
        .outerjoin(listed, listed.c.pair_id == Pair.id)
        .outerjoin(
            current,
            and_(current.c.assignment_id == listed.c.assignment, current.c.pair_id == Pair.id),
        )
        .outerjoin(resolutions, resolutions.c.pair_id == Pair.id)
        .where(Pair.project_id == project_id, Pair.purpose.in_(purposes))
        .order_by(Pair.id, listed.c.assignment, listed.c.position)
    )  # fmt: skip
    return with_records(query)
