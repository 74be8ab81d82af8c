"""Managers' conflicts queue over JSON: policy, referral, resolution, budgeted reveals."""

from __future__ import annotations

from flask import abort, jsonify, request
from flask_login import current_user
from sqlalchemy import select

from app.api.blueprint import bp
from app.api.openapi import documented, schemas
from app.api.openapi.manage import CONFLICTS, POLICY_BODY, RESOLVE_BODY, refer, resolution_reveal
from app.api.projects import json_body
from app.auth.decorators import roles_required
from app.extensions import db
from app.models import User
from app.projects.conflicts import (
    MAX_BULK,
    PER_PAGE,
    STATES,
    ConflictError,
    ListingError,
    conflict_page,
    refer_conflict,
    refer_conflicts,
    resolve_conflict,
    resolve_conflicts,
    reveal_for_resolution,
    set_conflict_policy,
)
from app.projects.views.access import changeable_project, owned_project
from app.review.serialize import reveal_json
from app.review.services import RevealRefused

BASE = "/projects/<int:project_id>/conflicts"
QUERY = {
    "state": {"enum": list(STATES)},
    "reviewer": {"type": "string", "maxLength": 80},
    "page": {"type": "integer", "minimum": 1, "maximum": 2**31 - 1},
    "per_page": {"enum": list(PER_PAGE)},
}
BULK_BODY = {
    "type": "object",
    "required": ["pairs"],
    "properties": {
        "pairs": {"type": "array", "minItems": 1, "maxItems": MAX_BULK, "items": schemas.ID},
        "decision": {"enum": ["same", "different"]},
        "confidence": schemas.CONFIDENCE,
        "refer_to": {"type": "string", "minLength": 1, "maxLength": 80},
        "budget": schemas.BUDGET_VALUE,  # a fraction of the maximum KAPR, as every API budget
    },
}
BULK_DONE = {
    "type": "object",
    "required": ["done", "skipped"],
    "properties": {
        "done": {"type": "array", "items": schemas.ID},
        "skipped": {"type": "array", "items": schemas.OBJECT},
    },
}


def _item_json(item) -> dict:
    answers = [
        {"reviewer": a.reviewer, "decision": a.decision, "confidence": a.confidence}
        for a in item.outcome.answers
    ]
    records = [{"source": source, "id": rid} for source, rid in item.records or ()]
    return {
        "pair_id": item.pair_id, "records": records,
        "state": item.state, "final": item.outcome.final,
        "referred_to": item.referred_to, "answers": answers,
        "can_refer": item.can_refer, "can_resolve": item.can_resolve,
    }  # fmt: skip


@bp.get(BASE)
@roles_required("manager", "admin")
@documented(
    "The conflicts queue of a project (filtered by state or reviewer; paged on request)",
    ok=CONFLICTS,
    query=QUERY,
)
def conflicts_view(project_id: int):
    """All conflicts, or ``?page=N`` (``per_page`` 20, 50 or 100) of those matching
    ``?state=`` (all, todo, open, tie, referred, settled) and ``?reviewer=``."""
    project = owned_project(project_id)
    args = request.args
    paged = "page" in args or "per_page" in args
    try:
        listing = conflict_page(
            project, state=args.get("state") or "all", reviewer=args.get("reviewer") or None,
            page=args.get("page", 1, type=int) if paged else 1,
            per_page=args.get("per_page", PER_PAGE[0], type=int) if paged else None,
        )  # fmt: skip
    except ListingError as exc:
        abort(400, str(exc))
    return jsonify(
        policy=project.conflict_policy, resolver_budget=project.resolver_budget,
        conflicts=[_item_json(i) for i in listing.items], total=listing.total,
        counts=listing.counts, page=listing.page, pages=listing.pages,
    )  # fmt: skip


@bp.post(f"{BASE}/bulk")
@roles_required("manager", "admin")
@documented(
    "Resolve many conflicts at once (or refer them), skipping those that cannot be",
    body=BULK_BODY,
    ok=BULK_DONE,
)
def conflicts_bulk_view(project_id: int):
    """``{"pairs": [..], "decision": "same", "confidence": "high"}`` or ``{"pairs": [..],
    "refer_to": "wil", "budget": 0.2}``: what was done and what was skipped, and why."""
    project, body = changeable_project(project_id), json_body()
    pairs = body.get("pairs")
    try:
        if body.get("refer_to") is not None:
            worker = db.session.scalar(select(User).where(User.username == body["refer_to"]))
            if worker is None:
                abort(400, f"no user {body['refer_to']!r}")
            result = refer_conflicts(project, pairs, worker, body.get("budget"), by=current_user)
        else:
            result = resolve_conflicts(
                project, pairs, body.get("decision"), body.get("confidence"), by=current_user
            )
    except ConflictError as exc:
        db.session.rollback()
        abort(400, str(exc))
    db.session.commit()
    skipped = [{"pair_id": p, "reason": why} for p, why in result.skipped]
    return jsonify(done=result.done, skipped=skipped)


def _done(action, *, reveal: bool = False):
    try:
        result = action()
    except ConflictError as exc:
        db.session.rollback()
        abort(400, str(exc))
    except RevealRefused as exc:
        db.session.rollback()
        return jsonify(error=exc.error, message=str(exc), **exc.details), exc.code
    body = reveal_json(result) if reveal else {"ok": True}
    db.session.commit()
    return jsonify(body)


@bp.post(f"{BASE}/policy")
@roles_required("manager")
@documented("Set the conflict policy", body=POLICY_BODY, ok=schemas.OK)
def conflict_policy_view(project_id: int):
    """``{"policy": "manager" | "reviewer", "resolver_budget": 0.05}``."""
    project, body = changeable_project(project_id), json_body()
    return _done(
        lambda: set_conflict_policy(
            project, body.get("policy"), body.get("resolver_budget", project.resolver_budget),
            by=current_user,
        )
    )  # fmt: skip


@bp.post(f"{BASE}/<int:pair_id>/refer")
@roles_required("manager")
@documented("Refer a conflict to a worker", body=refer, ok=schemas.OK)
def conflict_refer_view(project_id: int, pair_id: int):
    """``{"worker": "wil", "budget": 0.2}`` (budget only used for a new assignment)."""
    project, body = changeable_project(project_id), json_body()
    worker = db.session.scalar(select(User).where(User.username == str(body.get("worker"))))
    if worker is None:
        abort(400, f"no user {body.get('worker')!r}")
    return _done(
        lambda: refer_conflict(project, pair_id, worker, body.get("budget"), by=current_user)
    )


@bp.post(f"{BASE}/<int:pair_id>/resolve")
@roles_required("manager", "admin")
@documented("Resolve a conflict", body=RESOLVE_BODY, ok=schemas.OK)
def conflict_resolve_view(project_id: int, pair_id: int):
    """``{"decision": "same" | "different", "confidence": "high" | "medium" | "low"}``."""
    project, body = changeable_project(project_id), json_body()
    return _done(
        lambda: resolve_conflict(
            project, pair_id, body.get("decision"), body.get("confidence"), by=current_user
        )
    )


@bp.post(f"{BASE}/<int:pair_id>/reveal")
@roles_required("manager", "admin")
@documented(
    "Reveal a cell to resolve a conflict (budgeted)",
    body=resolution_reveal,
    ok=schemas.REVEALED,
    errors=(409,),
)
def conflict_reveal_view(project_id: int, pair_id: int):
    """``{"row": 0, "attribute": "last_name"}``: charged to the caller's resolver assignment."""
    project, body = changeable_project(project_id), json_body()
    row, attribute = body.get("row"), body.get("attribute")
    if not isinstance(row, int) or not isinstance(attribute, str):
        abort(400, "row must be an integer and attribute a string")
    return _done(
        lambda: reveal_for_resolution(project, pair_id, row, attribute, by=current_user),
        reveal=True,
    )
