"""What reviewers answered: the newest decision per assignment and pair, consensus, conflicts.

A pair's answer per reviewer is the newest :class:`DecisionEvent` of that (assignment,
pair), unless it clears the answer (:func:`~app.models.current_answer_ids`). Pairs
double-coded with different answers are conflicts; a majority of three or the manager's
newest :class:`ConflictResolution` of a pair settles it (see
:mod:`app.projects.conflicts.queue`). A manager's resolver assignment gives no answers.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass, field

from sqlalchemy import select

from app.extensions import db
from app.models import (
    Assignment,
    AssignmentPair,
    ConflictResolution,
    DecisionEvent,
    Pair,
    Purpose,
    User,
    current_answer_ids,
)
from app.projects.progress.agreement import consensus

__all__ = ["Answer", "PairOutcome", "outcomes"]


@dataclass(frozen=True)
class Answer:
    """One reviewer's newest answer for a pair (``decision`` ``None`` while unanswered)."""

    assignment_id: int
    reviewer: str
    decision: str | None = None
    confidence: str | None = None
    at: dt.datetime | None = None
    kapr: float | None = None


@dataclass
class PairOutcome:
    """A pair's reviewers' answers (in assignment order) and the manager's resolution."""

    pair_id: int
    answers: list[Answer] = field(default_factory=list)
    resolution: tuple[str, str | None] | None = None

    @property
    def decided(self) -> list[str]:
        return [a.decision for a in self.answers if a.decision is not None]

    @property
    def final(self) -> str | None:
        return consensus(self.decided, self.resolution[0] if self.resolution else None)

    @property
    def conflict(self) -> bool:
        """Reviewers disagree (settled or not: see :attr:`final`)."""
        return len(set(self.decided)) > 1

    @property
    def open(self) -> bool:
        """Reviewers disagree and neither a majority nor the manager has settled it."""
        return self.conflict and self.final is None

    @property
    def confidence(self) -> str | None:
        """The confidence behind :attr:`final`: the resolver's, or the least sure reviewer's."""
        if self.resolution is not None:
            return self.resolution[1]
        ranks = {"low": 1, "medium": 2, "high": 3}
        given = [a.confidence for a in self.answers if a.decision == self.final and a.confidence]
        return min(given, key=ranks.__getitem__, default=None)


def outcomes(project_id: int) -> dict[int, PairOutcome]:
    """Every pair of the project to review (by id order) with its reviewers' newest answers.

    The pairs the model decides (purpose ``model``) are not here: nobody reviews them (their
    decisions: :mod:`app.projects.progress.finals`).
    """
    result = {
        pair_id: PairOutcome(pair_id)
        for pair_id in db.session.scalars(
            select(Pair.id)
            .where(Pair.project_id == project_id, Pair.purpose != Purpose.MODEL.value)
            .order_by(Pair.id)
        )
    }
    in_project = select(Assignment.id).where(Assignment.project_id == project_id)
    newest = current_answer_ids(DecisionEvent.assignment_id.in_(in_project))
    events = {
        (e.assignment_id, e.pair_id): e
        for e in db.session.scalars(select(DecisionEvent).where(DecisionEvent.id.in_(newest)))
    }
    rows = db.session.execute(
        select(AssignmentPair.pair_id, Assignment.id, User.username, Assignment.kapr)
        .join(Assignment, Assignment.id == AssignmentPair.assignment_id)
        .join(User, User.id == Assignment.worker_id)
        .where(Assignment.project_id == project_id, Assignment.resolver.is_(False))
        .order_by(Assignment.id, AssignmentPair.position)
    )
    for pair_id, assignment_id, username, kapr in rows:
        event = events.get((assignment_id, pair_id))
        answer = Answer(assignment_id, username, kapr=kapr)
        if event is not None:
            answer = Answer(
                assignment_id, username, event.decision, event.confidence, event.at, kapr
            )
        result[pair_id].answers.append(answer)
    resolutions = db.session.execute(
        select(ConflictResolution)
        .join(Pair, Pair.id == ConflictResolution.pair_id)
        .where(Pair.project_id == project_id)
        .order_by(ConflictResolution.id)
    ).scalars()
    for r in resolutions:  # newest last, so it wins
        result[r.pair_id].resolution = (r.decision, r.confidence)
    return result
