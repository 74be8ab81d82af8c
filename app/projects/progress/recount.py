"""The progress counts recomputed from the decision events: the oracles of
:func:`~app.projects.progress.counts.stored_answers`.

:func:`counted_answers` reads the current answers once as integer arrays and counts them with
numpy; :func:`answer_counts_by_sql` gives the same counts as SQL aggregates. Both find the
newest event of every (assignment, pair) again, so they cost seconds at a million answers:
the tests and ``bench/`` hold the kept state equal to them.
"""

from __future__ import annotations

import numpy as np
from sqlalchemy import and_, case, func, literal, select

from app.bulk import int_table
from app.extensions import db
from app.models import (
    AssignmentPair,
    ConflictResolution,
    DecisionEvent,
    Pair,
    current_answer_ids,
)
from app.projects.progress.counts import _LABELS, AnswerCounts, newest_resolutions

__all__ = ["answer_counts_by_sql", "counted_answers"]


def counted_answers(project_id: int, reviewer_ids: list[int]) -> AnswerCounts:
    """:func:`answer_counts` from the current answers read once as integer arrays (assignment,
    pair, answer) and counted by numpy: one read of the answers instead of one per count
    (:func:`answer_counts_by_sql`, the same counts as SQL aggregates, is the tests' oracle)."""
    code = case(
        (DecisionEvent.decision == "same", 0), (DecisionEvent.decision == "different", 1), else_=2
    )
    newest = current_answer_ids(DecisionEvent.assignment_id.in_(reviewer_ids))
    columns = select(DecisionEvent.assignment_id, DecisionEvent.pair_id, code)
    table = int_table(columns.where(DecisionEvent.id.in_(newest)), 3)
    resolved = newest_resolutions(project_id)
    assignment, pair, answer = table[:, 0], table[:, 1], table[:, 2]
    ids, per = np.unique(assignment, return_counts=True)
    per_assignment = dict(zip(ids.tolist(), per.tolist(), strict=True))
    order = np.lexsort((assignment, pair))  # by pair, then assignment (the coders' order)
    pair, answer = pair[order], answer[order]
    pairs, start, n = np.unique(pair, return_index=True, return_counts=True)
    kinds = np.zeros((len(pairs), 3), dtype=np.int64)
    np.add.at(kinds, (np.repeat(np.arange(len(pairs)), n), answer), 1)
    due = np.ones(len(pairs), dtype=np.int64)  # a pair answered has at least one reviewer
    if len(pairs):
        multi = int_table(
            select(AssignmentPair.pair_id, func.count())
            .where(AssignmentPair.assignment_id.in_(reviewer_ids))
            .group_by(AssignmentPair.pair_id)
            .having(func.count() > 1),
            2,
        )  # every other assigned pair has one reviewer
        if len(multi):
            at = np.searchsorted(pairs, multi[:, 0])
            inside = at < len(pairs)
            hit = inside & (pairs[np.minimum(at, len(pairs) - 1)] == multi[:, 0])
            due[at[hit]] = multi[hit, 1]
    slots = np.maximum(n, due)  # a double-coded pair is settled once both reviewers agree
    majority = (2 * kinds[:, 0] > slots) | (2 * kinds[:, 1] > slots)
    has_resolution = np.isin(pairs, np.fromiter(resolved, np.int64, len(resolved)))
    settled = majority | has_resolution
    decided = int(settled.sum()) + len(set(resolved) - set(pairs.tolist()))
    conflicts = int((((kinds > 0).sum(axis=1) > 1) & ~settled).sum())
    answered = int((n == due).sum()) if len(pairs) else 0
    twice = n >= 2
    combos = answer[start[twice]] * 3 + answer[start[twice] + 1]
    found, times = np.unique(combos, return_counts=True)
    double = {
        (_LABELS[c // 3], _LABELS[c % 3]): int(k)
        for c, k in zip(found.tolist(), times.tolist(), strict=True)
    }
    return AnswerCounts(per_assignment, decided, conflicts, answered, double)


def answer_counts_by_sql(project_id: int, reviewer_ids: list[int]) -> AnswerCounts:
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
    due = (
        select(func.count())
        .where(
            AssignmentPair.assignment_id.in_(reviewer_ids),
            AssignmentPair.pair_id == per_pair.c.pair_id,
        )
        .scalar_subquery()
    )
    slots = case((due > per_pair.c.n, due), else_=per_pair.c.n)
    human = case(
        (resolved.c.decision.is_not(None), resolved.c.decision),
        (2 * per_pair.c.same > slots, literal("same")),
        (2 * per_pair.c.different > slots, literal("different")),
        else_=None,
    )
    kinds = (
        case((per_pair.c.same > 0, 1), else_=0)
        + case((per_pair.c.different > 0, 1), else_=0)
        + case((per_pair.c.unsure > 0, 1), else_=0)
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
