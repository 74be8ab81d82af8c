"""The reviewed pairs with their outcomes, read in pair order a chunk at a time.

:func:`reviewed_outcomes` gives what :func:`~app.projects.exports.linkage.reviewed_pairs`
and :func:`~app.projects.progress.outcomes.outcomes` give together (each pair to review, its
reviewers' current answers in assignment order and the manager's newest resolution) from four
queries read side by side, each ordered by pair and read
:data:`~app.projects.exports.linkage.STREAM_ROWS` rows at a time (server-side cursors on
PostgreSQL): the pairs, the reviewers' listings, the current answers and the newest
resolutions. Only the current pair's rows are held, never every pair's outcome. (One query
joining the four ran quadratically on SQLite: 45 s for 8,000 pairs.)
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator

from sqlalchemy import Result, func, select

from app.extensions import db
from app.models import (
    BY_ID,
    Assignment,
    AssignmentPair,
    ConflictResolution,
    DecisionEvent,
    Pair,
    Project,
    User,
    current_answer_ids,
    reviewed_pairs,
)
from app.projects.exports import linkage
from app.projects.exports.linkage import ReviewedPair
from app.projects.progress.finals import with_records
from app.projects.progress.outcomes import Answer, PairOutcome

__all__ = ["reviewed_outcomes"]


class _ByPair:
    """The rows of a query ordered by pair id (its first column), taken a pair at a time."""

    def __init__(self, rows: Iterable) -> None:
        self._rows = iter(rows)
        self._next = next(self._rows, None)

    def take(self, pair_id: int) -> list:
        """The rows of ``pair_id``, after skipping those of smaller ids."""
        found = []
        while self._next is not None and self._next[0] <= pair_id:
            if self._next[0] == pair_id:
                found.append(self._next)
            self._next = next(self._rows, None)
        return found


def reviewed_outcomes(
    project: Project, purpose: str | None = None
) -> Iterator[tuple[ReviewedPair, PairOutcome]]:
    """Each pair to review (of ``purpose`` only, if given) and its outcome, in pair order."""
    project_id = project.id
    pairs = with_records(
        select(Pair.id, Pair.purpose, Pair.round, Pair.match_probability, Pair.match_weight,
               Pair.rule)
        .where(*reviewed_pairs(project_id, [purpose] if purpose else None))
        .order_by(BY_ID)
    )  # fmt: skip
    results = [_rows(query) for query in (pairs, *_sides(project_id))]
    try:
        yield from _merged(*results)
    finally:  # close every cursor now, the side ones too (they may hold rows left unread)
        for result in results:
            result.close()


def _merged(pairs, listings, answers, resolutions) -> Iterator[tuple[ReviewedPair, PairOutcome]]:
    listed, answered, resolved = _ByPair(listings), _ByPair(answers), _ByPair(resolutions)
    for pair_id, *rest, sl, il, sr, ir in pairs:
        outcome = PairOutcome(pair_id)
        current = {row[1]: row for row in answered.take(pair_id)}
        for _, assignment_id, reviewer, kapr in listed.take(pair_id):
            event = current.get(assignment_id)
            if event is None:
                outcome.answers.append(Answer(assignment_id, reviewer, kapr=kapr))
            else:
                *_, decision, confidence, at = event
                answer = Answer(assignment_id, reviewer, decision, confidence, at, kapr)
                outcome.answers.append(answer)
        resolution = resolved.take(pair_id)
        if resolution:
            outcome.resolution = tuple(resolution[-1][1:])
        yield ReviewedPair(pair_id, (sl, il, sr, ir), *rest), outcome


def _rows(query) -> Result:
    return db.session.execute(query.execution_options(yield_per=linkage.STREAM_ROWS))


def _sides(project_id: int) -> tuple:
    return _listings(project_id), _answers(project_id), _resolutions(project_id)


def _listings(project_id: int):
    """The reviewers' listings of each pair, by pair, then assignment and position."""
    return (
        select(AssignmentPair.pair_id, Assignment.id, User.username, Assignment.kapr)
        .join(Assignment, Assignment.id == AssignmentPair.assignment_id)
        .join(User, User.id == Assignment.worker_id)
        .where(Assignment.project_id == project_id, Assignment.resolver.is_(False))
        .order_by(AssignmentPair.pair_id, Assignment.id, AssignmentPair.position)
    )


def _answers(project_id: int):
    """The current answers (:func:`~app.models.current_answer_ids`), by pair."""
    in_project = select(Assignment.id).where(Assignment.project_id == project_id)
    current = current_answer_ids(DecisionEvent.assignment_id.in_(in_project))
    return (
        select(
            DecisionEvent.pair_id, DecisionEvent.assignment_id, DecisionEvent.decision,
            DecisionEvent.confidence, DecisionEvent.at,
        )
        .where(DecisionEvent.id.in_(current))
        .order_by(DecisionEvent.pair_id, DecisionEvent.assignment_id)
    )  # fmt: skip


def _resolutions(project_id: int):
    """The manager's newest resolution of each pair, by pair."""
    newest = (
        select(func.max(ConflictResolution.id))
        .join(Pair, Pair.id == ConflictResolution.pair_id)
        .where(Pair.project_id + 0 == project_id)  # as outcomes: read the few resolutions first
        .group_by(ConflictResolution.pair_id)
    )
    return (
        select(
            ConflictResolution.pair_id, ConflictResolution.decision, ConflictResolution.confidence
        )
        .where(ConflictResolution.id.in_(newest))
        .order_by(ConflictResolution.pair_id)
    )  # fmt: skip
