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

from sqlalchemy import select, union

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

__all__ = ["Answer", "PairOutcome", "outcomes", "touched_pairs"]


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
        resolution = self.resolution[0] if self.resolution else None
        return consensus(self.decided, resolution, len(self.answers))

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


def touched_pairs(project_id: int) -> list[int]:
    """The ids of the pairs a reviewer has answered (or cleared) or the manager resolved: the
    only pairs whose outcome is more than "assigned, unanswered" (a superset is harmless).
    As many as people have answered, whatever the number of pairs."""
    reviewers = select(Assignment.id).where(
        Assignment.project_id == project_id, Assignment.resolver.is_(False)
    )
    answered = select(DecisionEvent.pair_id).where(DecisionEvent.assignment_id.in_(reviewers))
    resolved = (
        select(ConflictResolution.pair_id)
        .join(Pair, Pair.id == ConflictResolution.pair_id)
        .where(_of_project(project_id))
    )
    return sorted(db.session.scalars(union(answered, resolved)))


def outcomes(project_id: int, only: list[int] | None = None) -> dict[int, PairOutcome]:
    """Every pair of the project to review (by id order) with its reviewers' newest answers;
    with ``only`` (pair ids, e.g. :func:`touched_pairs`), those pairs only.

    The pairs the model decides (purpose ``model``) are not here: nobody reviews them (their
    decisions: :mod:`app.projects.progress.finals`).
    """
    query = select(Pair.id).where(
        Pair.project_id == project_id, Pair.purpose != Purpose.MODEL.value
    )
    found: list[int] = []
    for part in _chunks(only):
        where = query if part is None else query.where(Pair.id.in_(part))
        found.extend(db.session.scalars(where.order_by(Pair.id)))
    result = {pair_id: PairOutcome(pair_id) for pair_id in sorted(found)}
    in_project = select(Assignment.id).where(Assignment.project_id == project_id)
    # Columns, not ORM objects: a project may hold a million answers; with ``only``, the
    # answers of those pairs only.
    answer = select(
        DecisionEvent.assignment_id, DecisionEvent.pair_id, DecisionEvent.decision,
        DecisionEvent.confidence, DecisionEvent.at,
    )  # fmt: skip
    events = {}
    for part in _chunks(only):
        scope = [DecisionEvent.assignment_id.in_(in_project)]
        if part is not None:
            scope.append(DecisionEvent.pair_id.in_(part))
        newest = current_answer_ids(*scope)
        rows = db.session.execute(answer.where(DecisionEvent.id.in_(newest)))
        events.update(((e.assignment_id, e.pair_id), e) for e in rows)
    listed = (
        select(
            AssignmentPair.pair_id,
            Assignment.id,
            User.username,
            Assignment.kapr,
            AssignmentPair.position,
        )
        .join(Assignment, Assignment.id == AssignmentPair.assignment_id)
        .join(User, User.id == Assignment.worker_id)
        .where(Assignment.project_id == project_id, Assignment.resolver.is_(False))
    )
    order = (Assignment.id, AssignmentPair.position)
    rows = []
    for part in _chunks(only):
        where = listed if part is None else listed.where(AssignmentPair.pair_id.in_(part))
        rows.extend(db.session.execute(where.order_by(*order)).tuples())
    if only is not None:  # each chunk is in order, the chunks one after the other
        rows.sort(key=lambda row: (row[1], row[4]))
    for pair_id, assignment_id, username, kapr, _ in rows:
        if pair_id not in result:  # a synthetic check: its checks project's pair, not ours
            continue
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
        .where(_of_project(project_id))
        .order_by(ConflictResolution.id)
    ).scalars()
    for r in resolutions:  # newest last, so it wins
        if r.pair_id in result:
            result[r.pair_id].resolution = (r.decision, r.confidence)
    return result


def _chunks(ids: list[int] | None, size: int = 10_000):
    """``ids`` in bounded IN lists (SQLite's variable limit); ``[None]`` for no restriction."""
    if ids is None:
        yield None
        return
    for start in range(0, len(ids), size):
        yield ids[start : start + size]


def _of_project(project_id: int):
    """``Pair.project_id == project_id`` for a join from a small table (resolutions) to pairs.

    ``+ 0`` keeps SQLite from reading the pairs through their project index (every pair of
    a big project) and probing the small table for each: it then reads the small table and
    looks each pair up by its id. PostgreSQL plans by its statistics either way.
    """
    return Pair.project_id + 0 == project_id
