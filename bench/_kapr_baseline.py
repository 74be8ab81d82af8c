"""The reveal as it was before issue 15 (commit 201905e), kept as ``bench/kapr.py``'s baseline.

ORM loads with lazy relationships, ``Context.of`` per reveal, ``SELECT ... FOR UPDATE`` (or the
whole request under SQLite's ``BEGIN IMMEDIATE``), ORM inserts, and an answer that re-renders the
whole pair with fresh previews, its decision and name frequencies. Served by
:func:`register` at ``POST /bench/old/assignments/<id>/reveal`` on the bench's app, with
the token looked up on every request (no token cache), as then.

Not a bench itself (``run_all.py`` skips modules starting with ``_``).
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction

from flask import abort, jsonify, request
from flask_login import current_user
from sqlalchemy import select
from sqlalchemy.orm import joinedload

from app.auth.decorators import roles_required
from app.core.disclosure import Level
from app.core.kapr import reveal_cost
from app.extensions import db
from app.models import Assignment, AssignmentPair, CellState, Pair, RevealEvent, User
from app.review.answers import current_decisions
from app.review.grid import SIDE_NAMES, PairState, page_frequencies
from app.review.reveal import BudgetExceeded, NothingToReveal, NotInAssignment, RevealRefused
from app.review.serialize import meters_json, pair_json
from app.review.services import Context, _cells, _states, page_costs


def register(app) -> None:
    """Add the old reveal endpoint (before the app's first request)."""

    @roles_required("worker")
    def old_reveal(assignment_id: int):
        body = request.get_json(silent=True)
        if not isinstance(body, dict):
            abort(400)
        try:
            result = old_reveal_cell(
                assignment_id, body["pair_id"], body["row"], body["attribute"], by=current_user
            )
        except RevealRefused as exc:
            db.session.rollback()
            return jsonify(error=exc.error, message=str(exc), **exc.details), exc.code
        response = old_reveal_json(result)
        db.session.commit()
        return jsonify(response)

    app.add_url_rule(
        "/bench/old/assignments/<int:assignment_id>/reveal",
        "bench_old_reveal",
        old_reveal,
        methods=["POST"],
    )


@dataclass(frozen=True)
class OldRevealResult:
    assignment: Assignment
    pair: Pair
    state: PairState
    row: int
    attribute: str
    cost: Fraction
    kapr: Fraction
    context: Context | None = None  # reused by reveal_json instead of being rebuilt


def old_reveal_cell(
    assignment_id: int, pair_id: int, row: int, attribute: str, *, by: User
) -> OldRevealResult:
    """Advance one cell to its next level and charge its KAPR cost, or refuse.

    The caller commits. Raises :class:`RevealRefused` (and subclasses) with nothing changed.
    """
    assignment = _locked_assignment(assignment_id)
    if assignment is None or assignment.worker_id != by.id:
        raise NotInAssignment("no such assignment of yours")
    if row not in (0, 1):
        raise NotInAssignment("row must be 0 (record A) or 1 (record B)")
    link = db.session.get(AssignmentPair, (assignment.id, pair_id))
    if link is None:
        raise NotInAssignment("this pair is not in your assignment")
    ctx = Context.of(assignment)
    target = next((a for a in ctx.attributes if a.name == attribute), None)
    if target is None:
        raise NotInAssignment(f"no identifying attribute {attribute!r}")

    # The pair and both records in one query, and the pair's stored cells once: the
    # reveal is on the worker's hot path, and each lazy load is a round trip.
    pair = db.session.scalars(
        select(Pair)
        .where(Pair.id == pair_id)
        .options(joinedload(Pair.record_a), joinedload(Pair.record_b))
    ).one()
    cells = _cells(ctx, [pair.id])
    (state,) = _states(ctx, [pair], cells)
    level_from, level_to = state.level(row, attribute), state.next_level(row, attribute)
    if level_to is None:
        raise NothingToReveal("this cell shows everything it can already")
    left, right = ctx.indexes(pair)
    cost = reveal_cost(
        state.pair_view(),
        SIDE_NAMES[row],
        attribute,
        state.evidence(row, attribute, level_to),
        left,
        right,
        **ctx.scale_args(),
    )
    before = ctx.kapr
    after = before + cost
    if after > ctx.budget:
        raise BudgetExceeded(
            "revealing this cell would take your privacy risk over your budget",
            next_cost=float(cost),
            kapr=float(before),
            budget=assignment.budget,
        )
    stored = next((c for c in cells if c.row == row and c.attribute_id == target.id), None)
    _store_level(assignment.id, pair.id, row, target.id, level_to, stored)
    state.levels[row, attribute] = level_to
    gained = state.view(row, attribute).disclosed - state.view(row, attribute, level_from).disclosed
    assignment.kapr_exact, assignment.kapr = str(after), float(after)
    assignment.chars_disclosed += gained
    assignment.version += 1
    db.session.add(
        RevealEvent(
            assignment_id=assignment.id,
            pair_id=pair.id,
            row=row,
            attribute_id=target.id,
            user_id=by.id,
            level_from=level_from.value,
            level_to=level_to.value,
            cost_exact=str(cost),
            kapr_before_exact=str(before),
            kapr_after_exact=str(after),
            kapr_after=float(after),
        )
    )
    db.session.flush()
    return OldRevealResult(assignment, pair, state, row, attribute, cost, after, ctx)


def _locked_assignment(assignment_id: int) -> Assignment | None:
    query = select(Assignment).where(Assignment.id == assignment_id)
    if db.session.get_bind().dialect.name != "sqlite":
        query = query.with_for_update()
    return db.session.scalars(query.execution_options(populate_existing=True)).first()


def _store_level(
    assignment_id: int, pair_id: int, row: int, attribute_id: int, level: Level, cell=None
):
    """Write a cell's level; ``cell`` is its stored row when the caller has it loaded."""
    if cell is None:
        db.session.add(
            CellState(
                assignment_id=assignment_id,
                pair_id=pair_id,
                row=row,
                attribute_id=attribute_id,
                level=level.value,
            )
        )
    else:
        cell.level = level.value


def old_reveal_json(result: OldRevealResult) -> dict:
    """The JSON answer to a reveal: the pair with fresh previews, the cell and the meters."""
    assignment = result.assignment
    ctx = result.context or Context.of(assignment)
    costs = page_costs(ctx, [result.pair], [result.state])
    room = ctx.budget - ctx.kapr
    position = db.session.get(AssignmentPair, (assignment.id, result.pair.id)).position
    decision = current_decisions(assignment.id, [result.pair.id]).get(result.pair.id)
    frequencies = page_frequencies(ctx, [result.pair], [result.state])
    pair = pair_json(result.state, position, costs, room, decision, frequencies)
    return {
        "pair": pair,
        "cell": pair["rows"][result.row]["cells"][result.attribute],
        "cost": float(result.cost),
        "cost_exact": str(result.cost),
        "assignment": meters_json(assignment, ctx.kapr),
    }
