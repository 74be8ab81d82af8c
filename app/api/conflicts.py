"""Managers' conflicts queue over JSON: policy, referral, resolution, budgeted reveals."""

from __future__ import annotations

from flask import abort, jsonify
from flask_login import current_user
from sqlalchemy import select

from app.api.blueprint import bp
from app.api.openapi import documented, schemas
from app.api.projects import json_body
from app.auth.decorators import roles_required
from app.extensions import db
from app.models import User
from app.projects.conflicts import (
    ConflictError,
    conflict_queue,
    refer_conflict,
    resolve_conflict,
    reveal_for_resolution,
    set_conflict_policy,
)
from app.projects.views.access import owned_project
from app.review.serialize import reveal_json
from app.review.services import RevealRefused

BASE = "/projects/<int:project_id>/conflicts"


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
@documented("The conflicts queue of a project", ok=schemas.CONFLICTS)
def conflicts_view(project_id: int):
    project = owned_project(project_id)
    return jsonify(
        policy=project.conflict_policy, resolver_budget=project.resolver_budget,
        conflicts=[_item_json(i) for i in conflict_queue(project)],
    )  # fmt: skip


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
@documented("Set the conflict policy", body=schemas.POLICY_BODY, ok=schemas.OK)
def conflict_policy_view(project_id: int):
    """``{"policy": "manager" | "reviewer", "resolver_budget": 0.05}``."""
    project, body = owned_project(project_id), json_body()
    return _done(
        lambda: set_conflict_policy(
            project, body.get("policy"), body.get("resolver_budget", project.resolver_budget),
            by=current_user,
        )
    )  # fmt: skip


@bp.post(f"{BASE}/<int:pair_id>/refer")
@roles_required("manager")
@documented("Refer a conflict to a worker", body=schemas.refer, ok=schemas.OK)
def conflict_refer_view(project_id: int, pair_id: int):
    """``{"worker": "wil", "budget": 0.2}`` (budget only used for a new assignment)."""
    project, body = owned_project(project_id), json_body()
    worker = db.session.scalar(select(User).where(User.username == str(body.get("worker"))))
    if worker is None:
        abort(400, f"no user {body.get('worker')!r}")
    return _done(
        lambda: refer_conflict(project, pair_id, worker, body.get("budget"), by=current_user)
    )


@bp.post(f"{BASE}/<int:pair_id>/resolve")
@roles_required("manager", "admin")
@documented("Resolve a conflict", body=schemas.RESOLVE_BODY, ok=schemas.OK)
def conflict_resolve_view(project_id: int, pair_id: int):
    """``{"decision": "same" | "different", "confidence": "high" | "medium" | "low"}``."""
    project, body = owned_project(project_id), json_body()
    return _done(
        lambda: resolve_conflict(
            project, pair_id, body.get("decision"), body.get("confidence"), by=current_user
        )
    )


@bp.post(f"{BASE}/<int:pair_id>/reveal")
@roles_required("manager", "admin")
@documented(
    "Reveal a cell to resolve a conflict (budgeted)",
    body=schemas.resolution_reveal,
    ok=schemas.REVEALED,
    errors=(409,),
)
def conflict_reveal_view(project_id: int, pair_id: int):
    """``{"row": 0, "attribute": "last_name"}``: charged to the caller's resolver assignment."""
    project, body = owned_project(project_id), json_body()
    row, attribute = body.get("row"), body.get("attribute")
    if not isinstance(row, int) or not isinstance(attribute, str):
        abort(400, "row must be an integer and attribute a string")
    return _done(
        lambda: reveal_for_resolution(project, pair_id, row, attribute, by=current_user),
        reveal=True,
    )
