"""Worker endpoints: read an assignment page by page, reveal one cell, ask for the hint."""

from __future__ import annotations

from flask import abort, jsonify, request
from flask_login import current_user

from app.api.blueprint import bp
from app.api.openapi import documented, schemas
from app.api.openapi.review import ADVICE, ADVICE_QUERY, PAGE
from app.api.openapi.review import reveal as reveal_body
from app.auth import throttle
from app.auth.decorators import checks_token_itself, roles_required
from app.auth.token_cache import request_token
from app.database import reads_first
from app.extensions import db
from app.models import Assignment
from app.review import advice, services
from app.review.serialize import page_json, reveal_json


def own_assignment(assignment_id: int) -> Assignment:
    assignment = db.session.get(Assignment, assignment_id)
    if assignment is None:
        abort(404, "no such assignment")
    if assignment.worker_id != current_user.id:
        abort(403, "this assignment belongs to another worker")
    return assignment


@bp.get("/assignments/<int:assignment_id>")
@roles_required("worker")
@documented("One page of an assignment", ok=PAGE, query=schemas.PAGE_QUERY)
def assignment_page(assignment_id: int):
    ctx = services.Context.of(own_assignment(assignment_id))
    page = request.args.get("page", 1, type=int)
    try:
        body = page_json(ctx, page)
    except services.NotInAssignment as exc:
        abort(404, str(exc))
    return jsonify(body)


@bp.post("/assignments/<int:assignment_id>/reveal")
@checks_token_itself  # the reveal's read checks the token and the account (issue 42.5)
@roles_required("worker")
@reads_first  # reads and prices without the write lock; reveal_cell takes it to write
@documented("Reveal one cell (budgeted)", body=reveal_body, ok=schemas.REVEALED, errors=(409,))
def reveal(assignment_id: int):
    body = request.get_json(silent=True)
    if not isinstance(body, dict):
        abort(400, 'send {"pair_id", "row", "attribute"} as JSON')
    pair_id, row, attribute = body.get("pair_id"), body.get("row"), body.get("attribute")
    if not (_id(pair_id) and _id(row) and isinstance(attribute, str)):
        abort(400, "pair_id and row must be integers and attribute a string")
    shown = body.get("shown_level")  # the schema allows masked, partial, full or absent
    with throttle.reveal_in_flight(current_user.id):
        try:
            result = services.reveal_cell(
                assignment_id, pair_id, row, attribute,
                by=current_user, shown_level=shown, token=request_token(),
            )  # fmt: skip
        except services.RevealRefused as exc:
            db.session.rollback()
            return jsonify(error=exc.error, message=str(exc), **exc.details), exc.code
        db.session.commit()  # the write lock ends here; the answer is built after it
    return jsonify(reveal_json(result, pair_id))  # the worker's name for the pair, as sent


@bp.get("/assignments/<int:assignment_id>/advice")
@roles_required("worker")
@documented("The advisor's hint for one pair (read only)", ok=ADVICE, query=ADVICE_QUERY,
            errors=(403, 404, 410))  # fmt: skip
def assignment_advice(assignment_id: int):
    ctx = services.Context.of(own_assignment(assignment_id))
    if ctx.project.closed:
        abort(410, "this project was closed out: its identifying values were destroyed")
    pair_id = request.args.get("pair", type=int)
    if pair_id is None:
        abort(400, "give the pair: ?pair=<pair id>")
    try:
        found = advice.pair_advice(ctx, pair_id)
    except advice.AdviceOff as exc:
        abort(403, str(exc))
    except services.NotInAssignment as exc:
        abort(404, str(exc))
    return jsonify(advice.advice_json(found))


def _id(value) -> bool:
    """A JSON integer a database column can hold (not a boolean, within 64 bits)."""
    return isinstance(value, int) and not isinstance(value, bool) and 0 <= value < 2**63
