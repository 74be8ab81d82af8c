"""The progress page's answer counts, over the current answers only.

The same numbers :func:`~app.projects.progress.outcomes.outcomes` gives pair by pair in
Python (``tests/projects/progress/test_progress_at_scale.py`` holds them equal), three ways:

- :func:`stored_answers` (what the page uses): from the state the database keeps as answers
  come (:class:`~app.models.AnswerState` per assignment and pair, :class:`~app.models.PairAnswers`
  per pair, written by triggers): each assignment's answers counted from an index, the pairs
  grouped by their few integers, the resolutions applied pair by pair; nothing recomputes the
  newest of a million events;
- :func:`~app.projects.progress.recount.counted_answers`: the current answers read once as
  integer arrays, counted by numpy;
- :func:`~app.projects.progress.recount.answer_counts_by_sql`: SQL aggregates over the decision
  events (the tests' oracle).

What is counted:

- each reviewer assignment's current answers (a clear takes an answer back);
- pairs settled (the manager's newest resolution, else a majority of the answers:
  :func:`~app.projects.progress.agreement.consensus`), open conflicts (answers of more than
  one kind, not settled), pairs every one of whose reviewers answered;
- the first two coders' answers (by assignment) of every pair answered twice or more, counted
  per combination, for the agreement and its chart.
"""

from __future__ import annotations

from dataclasses import dataclass

from flask import has_request_context, request
from sqlalchemy import func, select, union

from app.extensions import db
from app.models import (
    CLEARED,
    AnswerState,
    AssignmentPair,
    ConflictResolution,
    Pair,
    PairAnswers,
)

__all__ = ["AnswerCounts", "answer_counts", "assigned_pairs", "stored_answers"]


@dataclass(frozen=True)
class AnswerCounts:
    """What the reviewers' current answers add up to (see the module docstring)."""

    per_assignment: dict[int, int]  # reviewer assignment id -> its current answers
    decided: int
    conflicts: int
    answered: int
    double: dict[tuple[str, str], int]  # (first coder's, second coder's) -> pairs

    @property
    def answers(self) -> int:
        return sum(self.per_assignment.values())

    def double_labels(self) -> list[tuple[str, str]]:
        """The first two coders' answers of each pair answered twice, as a list."""
        return [labels for labels, n in sorted(self.double.items()) for _ in range(n)]


def answer_counts(project_id: int, reviewer_ids: list[int]) -> AnswerCounts:
    """The counts over the current answers of the reviewer assignments ``reviewer_ids``
    (every reviewer assignment of the project: :func:`stored_answers`).

    Within one GET request (which writes nothing) they are counted once: the progress page
    asks for them for its summary and again for its agreement chart.
    """
    if not reviewer_ids:
        return AnswerCounts({}, 0, 0, 0, {})
    if not (has_request_context() and request.method in ("GET", "HEAD")):
        return stored_answers(project_id, reviewer_ids)
    # On the request's own environ, not ``g``: an app context may outlive a request (a test
    # client inside ``app.app_context()``), a request's environ does not.
    cache = request.environ.setdefault("mindfirl.answer_counts", {})
    key = (project_id, tuple(reviewer_ids))
    if key not in cache:
        cache[key] = stored_answers(project_id, reviewer_ids)
    return cache[key]


def stored_answers(project_id: int, reviewer_ids: list[int]) -> AnswerCounts:
    """:func:`answer_counts` from the state the database keeps as answers come
    (:class:`~app.models.AnswerState`, :class:`~app.models.PairAnswers`): each assignment's
    current answers counted, the pairs grouped by their few integers (a handful of groups
    for a million pairs), the manager's resolutions applied pair by pair.

    ``reviewer_ids`` must be every reviewer assignment of the project (``PairAnswers`` counts
    them all); ``per_assignment`` is theirs.
    """
    per_assignment = dict(
        db.session.execute(
            select(AnswerState.assignment_id, func.count())
            .where(AnswerState.assignment_id.in_(reviewer_ids), AnswerState.decision != CLEARED)
            .group_by(AnswerState.assignment_id)
        ).all()
    )
    shape = (
        PairAnswers.answers, PairAnswers.due, PairAnswers.same, PairAnswers.different,
        PairAnswers.unsure, PairAnswers.first, PairAnswers.second,
    )  # fmt: skip
    groups = db.session.execute(
        select(*shape, func.count()).where(PairAnswers.project_id == project_id).group_by(*shape)
    ).all()
    decided = conflicts = answered = 0
    double: dict[tuple[str, str], int] = {}
    for n, due, same, different, unsure, first, second, pairs in groups:
        if not n:
            continue
        slots = max(n, due)  # a double-coded pair is settled once both reviewers agree
        settled = 2 * same > slots or 2 * different > slots
        decided += pairs * settled
        conflicts += pairs * (not settled and (same > 0) + (different > 0) + (unsure > 0) > 1)
        answered += pairs * (n == due)
        if n >= 2:
            double[first, second] = double.get((first, second), 0) + pairs
    resolved = newest_resolutions(project_id)
    rows = {}
    for start in range(0, len(resolved), 10_000):  # SQLite's variable limit
        part = list(resolved)[start : start + 10_000]
        rows.update(
            (row[0], row[1:])
            for row in db.session.execute(
                select(PairAnswers.pair_id, *shape[:5]).where(PairAnswers.pair_id.in_(part))
            )
        )
    for pair_id in resolved:  # a resolution settles what the answers did not
        n, due, same, different, unsure = rows.get(pair_id, (0, 0, 0, 0, 0))
        slots = max(n, due)
        if not n or not (2 * same > slots or 2 * different > slots):
            decided += 1
            conflicts -= bool(n) and (same > 0) + (different > 0) + (unsure > 0) > 1
    return AnswerCounts(per_assignment, decided, conflicts, answered, double)


def newest_resolutions(project_id: int) -> dict[int, str]:
    """Each resolved pair of the project and the manager's newest decision for it."""
    return dict(
        db.session.execute(
            select(ConflictResolution.pair_id, ConflictResolution.decision)
            .join(Pair, Pair.id == ConflictResolution.pair_id)
            .where(Pair.project_id + 0 == project_id)
            .order_by(ConflictResolution.id)
        ).all()
    )  # newest last, so it wins


_LABELS = ("same", "different", "unsure")
_MERGED = 400  # assignments merged by one compound SELECT (SQLite allows 500 terms)


def assigned_pairs(assignment_ids: list[int]) -> int:
    """The distinct pairs the assignments ``assignment_ids`` hold, counted once per GET request
    for the same assignments (the summary and the pooled KAPR of the progress page both ask:
    a ``COUNT(DISTINCT)`` over a million assignment rows)."""
    if not assignment_ids:
        return 0
    count = select(func.count(AssignmentPair.pair_id.distinct())).where(
        AssignmentPair.assignment_id.in_(assignment_ids)
    )
    if db.session.get_bind().dialect.name == "sqlite" and len(assignment_ids) <= _MERGED:
        # Each assignment's pairs come in pair order from its primary key: SQLite merges the
        # sorted lists (``MERGE (UNION)``) instead of sorting them all into a temporary
        # b-tree (200k records, 1M pairs: 0.23 s against 0.39 s). PostgreSQL's own
        # COUNT(DISTINCT) was the fastest of the forms tried there.
        lists = [
            select(AssignmentPair.pair_id).where(AssignmentPair.assignment_id == i)
            for i in assignment_ids
        ]
        merged = union(*lists).order_by(AssignmentPair.pair_id) if len(lists) > 1 else lists[0]
        count = select(func.count()).select_from(merged.subquery())
    if not (has_request_context() and request.method in ("GET", "HEAD")):
        return db.session.scalar(count)
    cache = request.environ.setdefault("mindfirl.assigned_pairs", {})
    key = tuple(sorted(assignment_ids))
    if key not in cache:
        cache[key] = db.session.scalar(count)
    return cache[key]
