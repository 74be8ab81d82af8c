"""The manager steps as main did them before issue 24's phase 2, kept callable as
``bench/scale.py``'s baseline.

- :func:`assign_pairs` writes one ORM ``AssignmentPair`` per pair and counts the characters
  meter by rendering every cell of every pair (lazy-loading each pair and its records);
- :func:`progress_numbers` builds every pair's outcome in Python (the old ``project_progress``);
- :func:`splink_export` writes the ``splink`` labels from every pair's outcome;
- :func:`outcomes` is main's (an ORM object per answer), which both use.

Not a bench itself (``run_all.py`` skips modules starting with ``_``).
"""

from __future__ import annotations

import io

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
from app.projects.exports import peers
from app.projects.exports.linkage import reviewed_pairs
from app.projects.exports.whole import settled_of
from app.projects.progress.agreement import agreement
from app.projects.progress.outcomes import Answer, PairOutcome
from app.review.services import Context, pair_states


def assign_pairs(project, worker, budget: float, pair_ids: list[int], number: int) -> Assignment:
    """The old bulk of ``assign_pairs`` for a list of pairs without ``start_partial``."""
    assignment = Assignment(
        project_id=project.id, worker_id=worker.id, budget=float(budget), round=number
    )
    assignment.pairs = [AssignmentPair(pair_id=p, position=i) for i, p in enumerate(pair_ids)]
    db.session.add(assignment)
    db.session.flush()
    ctx = Context.of(assignment)
    pairs = [link.pair for link in assignment.pairs]
    total = sum(state.characters()[1] for state in pair_states(ctx, pairs))
    assignment.kapr_exact, assignment.kapr = "0", 0.0
    assignment.chars_disclosed, assignment.chars_total = 0, total
    db.session.flush()
    return assignment


def progress_numbers(project) -> dict:
    """The old ``project_progress``'s numbers, from every pair's outcome."""
    by_pair = outcomes(project.id)
    counts: dict[int, tuple[int, int]] = {}
    double = []
    for outcome in by_pair.values():
        for answer in outcome.answers:
            pairs, decided = counts.get(answer.assignment_id, (0, 0))
            counts[answer.assignment_id] = (pairs + 1, decided + (answer.decision is not None))
        decided = outcome.decided
        if len(decided) >= 2:
            double.append((decided[0], decided[1]))
    given = [len(o.decided) for o in by_pair.values()]
    due = [len(o.answers) for o in by_pair.values()]
    return {
        "pairs": len(by_pair),
        "decided": sum(o.final is not None for o in by_pair.values()),
        "conflicts": sum(o.open for o in by_pair.values()),
        "assigned": sum(d > 0 for d in due),
        "answered": sum(d > 0 and g == d for g, d in zip(given, due, strict=True)),
        "answers": sum(given),
        "answers_due": sum(due),
        "agreement": agreement(double),
        "workers": counts,
    }


def splink_export(project) -> str:
    """The old ``splink`` export: every pair's outcome, then the settled ones written."""
    out = io.StringIO()
    by_pair = outcomes(project.id)
    settled = (settled_of(pair, by_pair[pair.id]) for pair in reviewed_pairs(project))
    peers.write_splink_labels(out, settled)
    return out.getvalue()


def outcomes(project_id: int) -> dict[int, PairOutcome]:
    """main's ``outcomes``: every pair to review (by id order) with its newest answers.

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
