"""The progress page's answer counts, over the current answers only.

The same numbers :func:`~app.projects.progress.outcomes.outcomes` gives pair by pair in
Python (``tests/projects/progress/test_progress_at_scale.py`` holds them equal), three ways:

- :func:`stored_answers` (what the page uses): from the state the database keeps as answers
  come (:class:`~app.models.AnswerState` per assignment and pair, :class:`~app.models.PairAnswers`
  per pair, written by triggers): each assignment's answers counted from an index, the pairs
  grouped by their few integers, the resolutions applied pair by pair; nothing recomputes the
  newest of a million events;
- :func:`counted_answers`: the current answers read once as integer arrays, counted by numpy;
- :func:`_answer_counts`: SQL aggregates over the decision events (the tests' oracle).

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

import numpy as np
from flask import has_request_context, request
from sqlalchemy import and_, case, func, literal, select, union

from app.bulk import int_table
from app.extensions import db
from app.models import (
    CLEARED,
    AnswerState,
    AssignmentPair,
    ConflictResolution,
    DecisionEvent,
    Pair,
    PairAnswers,
    current_answer_ids,
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
        settled = 2 * same > n or 2 * different > n
        decided += pairs * settled
        conflicts += pairs * (not settled and (same > 0) + (different > 0) + (unsure > 0) > 1)
        answered += pairs * (n == due)
        if n >= 2:
            double[first, second] = double.get((first, second), 0) + pairs
    resolved = _newest_resolutions(project_id)
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
        n, _, same, different, unsure = rows.get(pair_id, (0, 0, 0, 0, 0))
        if not n or not (2 * same > n or 2 * different > n):
            decided += 1
            conflicts -= bool(n) and (same > 0) + (different > 0) + (unsure > 0) > 1
    return AnswerCounts(per_assignment, decided, conflicts, answered, double)


def _newest_resolutions(project_id: int) -> dict[int, str]:
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


def counted_answers(project_id: int, reviewer_ids: list[int]) -> AnswerCounts:
    """:func:`answer_counts` from the current answers read once as integer arrays (assignment,
    pair, answer) and counted by numpy: one read of the answers instead of one per count
    (:func:`_answer_counts`, the same counts as SQL aggregates, is the tests' oracle)."""
    code = case(
        (DecisionEvent.decision == "same", 0), (DecisionEvent.decision == "different", 1), else_=2
    )
    newest = current_answer_ids(DecisionEvent.assignment_id.in_(reviewer_ids))
    columns = select(DecisionEvent.assignment_id, DecisionEvent.pair_id, code)
    table = int_table(columns.where(DecisionEvent.id.in_(newest)), 3)
    resolved = _newest_resolutions(project_id)
    assignment, pair, answer = table[:, 0], table[:, 1], table[:, 2]
    ids, per = np.unique(assignment, return_counts=True)
    per_assignment = dict(zip(ids.tolist(), per.tolist(), strict=True))
    order = np.lexsort((assignment, pair))  # by pair, then assignment (the coders' order)
    pair, answer = pair[order], answer[order]
    pairs, start, n = np.unique(pair, return_index=True, return_counts=True)
    kinds = np.zeros((len(pairs), 3), dtype=np.int64)
    np.add.at(kinds, (np.repeat(np.arange(len(pairs)), n), answer), 1)
    majority = (2 * kinds[:, 0] > n) | (2 * kinds[:, 1] > n)
    has_resolution = np.isin(pairs, np.fromiter(resolved, np.int64, len(resolved)))
    settled = majority | has_resolution
    decided = int(settled.sum()) + len(set(resolved) - set(pairs.tolist()))
    conflicts = int((((kinds > 0).sum(axis=1) > 1) & ~settled).sum())
    answered = 0
    if len(pairs):
        multi = int_table(
            select(AssignmentPair.pair_id, func.count())
            .where(AssignmentPair.assignment_id.in_(reviewer_ids))
            .group_by(AssignmentPair.pair_id)
            .having(func.count() > 1),
            2,
        )  # every other assigned pair has one reviewer
        due = np.ones(len(pairs), dtype=np.int64)
        if len(multi):
            at = np.searchsorted(pairs, multi[:, 0])
            inside = at < len(pairs)
            hit = inside & (pairs[np.minimum(at, len(pairs) - 1)] == multi[:, 0])
            due[at[hit]] = multi[hit, 1]
        answered = int((n == due).sum())
    twice = n >= 2
    combos = answer[start[twice]] * 3 + answer[start[twice] + 1]
    found, times = np.unique(combos, return_counts=True)
    double = {
        (_LABELS[c // 3], _LABELS[c % 3]): int(k)
        for c, k in zip(found.tolist(), times.tolist(), strict=True)
    }
    return AnswerCounts(per_assignment, decided, conflicts, answered, double)


def _answer_counts(project_id: int, reviewer_ids: list[int]) -> AnswerCounts:
    current = (
        select(DecisionEvent.assignment_id, DecisionEvent.pair_id, DecisionEvent.decision)
        .where(DecisionEvent.id.in_(current_answer_ids(DecisionEvent.assignment_id.in_(reviewer_ids))))
        .subquery()
    )  # fmt: skip
    per_assignment = dict(
        db.session.execute(
            select(current.c.assignment_id, func.count()).group_by(current.c.assignment_id)
        ).all()
    )

    def kind(label: str):
        return func.sum(case((current.c.decision == label, 1), else_=0))

    per_pair = (
        select(
            current.c.pair_id,
            func.count().label("n"),
            kind("same").label("same"),
            kind("different").label("different"),
            kind("unsure").label("unsure"),
        )
        .group_by(current.c.pair_id)
        .subquery()
    )
    newest = (
        select(func.max(ConflictResolution.id))
        .join(Pair, Pair.id == ConflictResolution.pair_id)
        .where(Pair.project_id + 0 == project_id)  # read the resolutions first (SQLite)
        .group_by(ConflictResolution.pair_id)
    )
    resolved = (
        select(ConflictResolution.pair_id, ConflictResolution.decision)
        .where(ConflictResolution.id.in_(newest))
        .subquery()
    )
    human = case(
        (resolved.c.decision.is_not(None), resolved.c.decision),
        (2 * per_pair.c.same > per_pair.c.n, literal("same")),
        (2 * per_pair.c.different > per_pair.c.n, literal("different")),
        else_=None,
    )
    kinds = (
        case((per_pair.c.same > 0, 1), else_=0)
        + case((per_pair.c.different > 0, 1), else_=0)
        + case((per_pair.c.unsure > 0, 1), else_=0)
    )
    due = (
        select(func.count())
        .where(
            AssignmentPair.assignment_id.in_(reviewer_ids),
            AssignmentPair.pair_id == per_pair.c.pair_id,
        )
        .scalar_subquery()
    )
    decided, conflicts, answered = db.session.execute(
        select(
            func.coalesce(func.sum(case((human.is_not(None), 1), else_=0)), 0),
            func.coalesce(func.sum(case((and_(kinds > 1, human.is_(None)), 1), else_=0)), 0),
            func.coalesce(func.sum(case((per_pair.c.n == due, 1), else_=0)), 0),
        ).select_from(per_pair.outerjoin(resolved, resolved.c.pair_id == per_pair.c.pair_id))
    ).one()
    # A resolution stands for a pair whose answers were all taken back since.
    unanswered = select(func.count()).where(resolved.c.pair_id.not_in(select(current.c.pair_id)))
    decided += db.session.scalar(unanswered)
    return AnswerCounts(
        per_assignment, int(decided), int(conflicts), int(answered), _first_two(current)
    )


def _first_two(current) -> dict[tuple[str, str], int]:
    """(first, second) coder's answer -> pairs, over the pairs answered at least twice."""
    ranked = select(
        current.c.pair_id,
        current.c.decision,
        func.row_number()
        .over(partition_by=current.c.pair_id, order_by=current.c.assignment_id)
        .label("rank"),
    ).subquery()
    # One pass per pair (no self-join: SQLite would join the window's rows without an index).
    by_pair = (
        select(
            func.max(case((ranked.c.rank == 1, ranked.c.decision))).label("first"),
            func.max(case((ranked.c.rank == 2, ranked.c.decision))).label("second"),
        )
        .group_by(ranked.c.pair_id)
        .subquery()
    )
    rows = db.session.execute(
        select(by_pair.c.first, by_pair.c.second, func.count())
        .where(by_pair.c.second.is_not(None))
        .group_by(by_pair.c.first, by_pair.c.second)
    ).all()
    return {(a, b): n for a, b, n in rows}
