"""The conflicts queue page: policy, referral to a third reviewer, resolution, budgeted reveals."""

from __future__ import annotations

from flask import flash, redirect, render_template, request, url_for
from flask_login import current_user
from sqlalchemy import select

from app.auth.decorators import roles_required
from app.extensions import db
from app.models import Role, User
from app.projects.conflicts import (
    ConflictError,
    open_for_resolution,
    refer_conflict,
    resolve_conflict,
    resolver_assignment,
    reveal_for_resolution,
    set_conflict_policy,
)
from app.projects.conflicts import conflict_queue as queue_of
from app.projects.views.access import MANAGERS, owned_project
from app.projects.views.blueprint import bp
from app.review.services import Context, RevealRefused, page_costs, pair_states


def _back(project_id: int):
    return redirect(url_for("projects.conflict_queue", project_id=project_id))


def _number(name: str) -> float | None:
    raw = (request.form.get(name) or "").strip()
    return float(raw) if raw else None


def _resolver_views(project):
    """The manager's resolver assignment and, per pair in it, its state and next costs."""
    assignment = resolver_assignment(project, current_user)
    if assignment is None:
        return None, {}
    ctx = Context.of(assignment)
    pairs = [link.pair for link in assignment.pairs]
    states = pair_states(ctx, pairs)
    costs = page_costs(ctx, pairs, states)
    return ctx, {s.pair_id: (s, costs) for s in states}


@bp.get("/<int:project_id>/conflicts")
@roles_required(*MANAGERS)
def conflict_queue(project_id: int):
    project = owned_project(project_id)
    workers = db.session.scalars(
        select(User).where(User.role == Role.WORKER, User.active.is_(True)).order_by(User.username)
    ).all()
    resolver, views = _resolver_views(project)
    return render_template(
        "projects/conflicts.html", project=project, items=queue_of(project),
        workers=workers, resolver=resolver, views=views,
    )  # fmt: skip


def _act(project_id: int, action, done: str):
    """Run ``action(project)``; commit and flash ``done``, or roll back and flash why not."""
    project = owned_project(project_id)
    try:
        action(project)
    except (ConflictError, RevealRefused, ValueError) as exc:
        db.session.rollback()
        flash(f"Not done: {exc}", "error")
    else:
        db.session.commit()
        flash(done, "info")
    return _back(project.id)


@bp.post("/<int:project_id>/conflicts/policy")
@roles_required(*MANAGERS)
def conflict_policy(project_id: int):
    form = request.form
    return _act(
        project_id,
        lambda p: set_conflict_policy(
            p, form.get("policy", ""), _number("resolver_budget"), by=current_user
        ),
        "Conflict policy saved.",
    )


@bp.post("/<int:project_id>/conflicts/<int:pair_id>/refer")
@roles_required(*MANAGERS)
def conflict_refer(project_id: int, pair_id: int):
    name = request.form.get("worker", "")

    def refer(project):
        worker = db.session.scalar(select(User).where(User.username == name))
        if worker is None:
            raise ConflictError(f"no worker {name!r}")
        refer_conflict(project, pair_id, worker, _number("budget"), by=current_user)

    return _act(project_id, refer, f"Pair {pair_id} referred to {name}.")


@bp.post("/<int:project_id>/conflicts/<int:pair_id>/resolve")
@roles_required(*MANAGERS)
def conflict_resolve(project_id: int, pair_id: int):
    decision, confidence = request.form.get("decision", ""), request.form.get("confidence")
    return _act(
        project_id,
        lambda p: resolve_conflict(p, pair_id, decision, confidence or None, by=current_user),
        f"Pair {pair_id} resolved.",
    )


@bp.post("/<int:project_id>/conflicts/<int:pair_id>/open")
@roles_required(*MANAGERS)
def conflict_open(project_id: int, pair_id: int):
    return _act(
        project_id,
        lambda p: open_for_resolution(p, pair_id, current_user),
        f"Pair {pair_id} is in your resolver assignment; reveals are charged to its budget.",
    )


@bp.post("/<int:project_id>/conflicts/<int:pair_id>/reveal")
@roles_required(*MANAGERS)
def conflict_reveal(project_id: int, pair_id: int):
    row, attribute = request.form.get("row", type=int), request.form.get("attribute", "")
    return _act(
        project_id,
        lambda p: reveal_for_resolution(p, pair_id, row, attribute, by=current_user),
        "Revealed.",
    )
