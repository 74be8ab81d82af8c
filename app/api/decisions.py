"""Workers' answers: save or clear a decision, read the answers and progress, submit a page."""

from __future__ import annotations

from flask import abort, jsonify, request
from flask_login import current_user

from app.api.blueprint import bp
from app.api.openapi import documented
from app.api.openapi.review import (
    CLEAR_BODY,
    DECISION_BODY,
    DECISION_CLEARED,
    DECISION_SAVED,
    DECISIONS,
    PAGE_SUBMITTED,
    SUBMIT_BODY,
)
from app.api.projects import json_body
from app.auth.decorators import checks_token_itself, roles_required
from app.auth.token_cache import request_token
from app.extensions import db
from app.models import Assignment
from app.projects.quality import observe_answer
from app.review.answers import (
    ANY_VERSION,
    AccountChanged,
    AnswerChanged,
    AnswersClosed,
    AnswersPaused,
    DecisionError,
    NotInAssignment,
    PageIncomplete,
    answer_summary,
    clear_answer,
    current_decisions,
    ordered_pair_ids,
    own_assignment,
    page_count,
    page_pair_ids,
    resume_page,
    save_answer,
    submit_page,
)
from app.review.handles import names_of, pair_of


def worker_assignment(assignment_id: int) -> Assignment:
    """The caller's own assignment: 404 when there is none, 403 when it is someone else's."""
    try:
        return own_assignment(assignment_id, current_user)
    except NotInAssignment as exc:
        abort(404, str(exc))
    except PermissionError as exc:
        abort(403, str(exc))


def summary(assignment_id: int, found=None) -> dict:
    """Progress and tally of the assignment (``found``: a summary read already)."""
    found = found or answer_summary(db.session.connection(), assignment_id)
    return {"decided": found.decided, "total": found.total, "tally": found.tally}


@bp.get("/assignments/<int:assignment_id>/decisions")
@roles_required("worker")
@documented("The caller's answers and progress", ok=DECISIONS)
def list_decisions(assignment_id: int):
    assignment = worker_assignment(assignment_id)
    found = current_decisions(assignment.id)
    names = names_of(assignment.id, found) if found else {}
    answers = {
        str(names[pair_id]): {"decision": e.decision, "confidence": e.confidence, "version": e.id}
        for pair_id, e in found.items()
    }
    pages = page_count(len(ordered_pair_ids(assignment.id)), assignment.project.page_size)
    return jsonify(
        decisions=answers,
        resume_page=resume_page(assignment),
        pages=pages,
        **summary(assignment.id),
    )


@bp.post("/assignments/<int:assignment_id>/decisions")
@checks_token_itself  # the owner read checks the token and the account (issue 42.5)
@roles_required("worker")
@documented(
    "Save a decision",
    body=DECISION_BODY,
    ok=DECISION_SAVED,
    status=201,
    errors=(409,),
)
def save_decision(assignment_id: int):
    body = request.get_json(silent=True)
    body = body if isinstance(body, dict) else {}
    pair_id, decision, confidence = (body.get(k) for k in ("pair_id", "decision", "confidence"))
    if not isinstance(pair_id, int) or isinstance(pair_id, bool):
        worker_assignment(assignment_id)  # 404 and 403 come before a 400
        json_body()
        abort(400, "'pair_id' must be an integer")
    version = body.get("version", ANY_VERSION)
    try:
        saved = save_answer(
            assignment_id, pair_id, decision, confidence,
            by=current_user, version=version, token=request_token(),
        )  # fmt: skip
    except AccountChanged as exc:
        abort(exc.status, str(exc))
    except AnswersClosed as exc:
        abort(410, str(exc))
    except AnswersPaused as exc:
        return paused(exc)
    except PermissionError as exc:
        abort(403, str(exc))
    except DecisionError as exc:
        abort(400, str(exc))
    except NotInAssignment as exc:
        abort(404, str(exc))
    except AnswerChanged as exc:
        return changed(exc)
    if saved.is_check:  # one of the reviewer's checks: alert the manager?
        observe_answer(assignment_id, saved.pair_id)
    db.session.commit()
    answer = {"pair_id": pair_id, "decision": decision, "confidence": confidence}
    saved_answer = {"id": saved.id, "version": saved.id, **answer}
    session = {"break": saved.session.as_dict()}
    return jsonify(**saved_answer, **summary(assignment_id, saved.summary), **session), 201


def paused(exc: AnswersPaused):
    """409: the manager paused the assignment."""
    return jsonify(error="paused", message=str(exc)), 409


def changed(exc: AnswerChanged):
    """409: the pair's answer changed since the client read it; its answer and version now."""
    current = exc.current and {"decision": exc.current[0], "confidence": exc.current[1]}
    body = {"error": "answer_changed", "message": str(exc), "current": current}
    return jsonify(**body, version=exc.version), 409


@bp.post("/assignments/<int:assignment_id>/decisions/clear")
@roles_required("worker")
@documented(
    "Clear an answer (the pair is unanswered again)",
    body=CLEAR_BODY,
    ok=DECISION_CLEARED,
    status=201,
    errors=(409,),
)
def clear_decision(assignment_id: int):
    assignment = worker_assignment(assignment_id)
    body = json_body()
    name = body.get("pair_id")
    if not isinstance(name, int) or isinstance(name, bool):
        abort(400, "'pair_id' must be an integer")
    pair_id = pair_of(assignment.id, name)
    try:
        event = clear_answer(
            assignment, pair_id, by=current_user, version=body.get("version", ANY_VERSION)
        )
    except AnswersClosed as exc:
        abort(410, str(exc))
    except AnswersPaused as exc:
        return paused(exc)
    except DecisionError as exc:
        abort(400, str(exc))
    except NotInAssignment as exc:
        abort(404, str(exc))
    except AnswerChanged as exc:
        return changed(exc)
    db.session.commit()
    cleared = {"id": event.id, "version": event.id, "pair_id": name, "cleared": True}
    return jsonify(**cleared, **summary(assignment_id)), 201


@bp.post("/assignments/<int:assignment_id>/pages/<int:page>/submit")
@roles_required("worker")
@documented(
    "Submit a page",
    body=SUBMIT_BODY,
    ok=PAGE_SUBMITTED,
    body_required=False,
)
def submit_page_view(assignment_id: int, page: int):
    assignment = worker_assignment(assignment_id)
    body = request.get_json(silent=True)
    shown = body.get("pair_ids") if isinstance(body, dict) else None
    if shown is not None and not (isinstance(shown, list) and all(type(p) is int for p in shown)):
        abort(400, "'pair_ids' must be a list of integers")
    try:
        names = names_of(assignment.id, page_pair_ids(assignment, page))  # the worker's names
        foreign = sorted(set(shown or ()) - set(names.values()))
        if foreign:
            raise DecisionError(f"pairs not on page {page} of this assignment: {foreign[:10]}")
        result = submit_page(assignment, page)
    except PageIncomplete as exc:
        unanswered = [names[p] for p in exc.unanswered]
        body = {"error": "unanswered", "message": str(exc), "unanswered": unanswered}
        return jsonify(body), 400
    except DecisionError as exc:
        abort(400, str(exc))
    except NotInAssignment as exc:
        abort(404, str(exc))
    return jsonify(
        page=result.page,
        next_page=result.next_page,
        complete=result.next_page is None,
        decided=result.decided,
        total=result.total,
    )
