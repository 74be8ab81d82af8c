"""The conflicts queue page: policy, referral to a third reviewer, resolution, budgeted reveals.

At volume: the queue is filtered (state, reviewer) and paged, a selection is resolved or
referred at once, and every action lands back on the same filter and page, at the row it
was taken on (or the row that took its place), never at the top of the page.
"""

from __future__ import annotations

from flask import abort, flash, redirect, render_template, request, url_for
from flask_login import current_user
from sqlalchemy import select

from app.auth.decorators import roles_required
from app.extensions import db
from app.models import Role, User
from app.projects.conflicts import (
    PER_PAGE,
    STATES,
    ConflictError,
    ListingError,
    conflict_page,
    open_for_resolution,
    refer_conflict,
    refer_conflicts,
    resolve_conflict,
    resolve_conflicts,
    resolver_assignment,
    reveal_for_resolution,
    set_conflict_policy,
)
from app.projects.views.access import MANAGERS, changeable_project, owned_project
from app.projects.views.blueprint import bp
from app.review.services import Context, RevealRefused, page_costs, pair_states
from app.units import parse_percent

PLACE = ("state", "reviewer", "page", "per_page")  # the listing a form came from


def _place(values) -> dict:
    """The filter and page of a request (query or form), as :func:`conflict_page` takes it."""
    return {
        "state": values.get("state") or "all",
        "reviewer": values.get("reviewer") or None,
        "page": values.get("page", 1, type=int) or 1,
        "per_page": values.get("per_page", PER_PAGE[0], type=int) or PER_PAGE[0],
    }


def _budget(name: str) -> float | None:
    raw = (request.form.get(name) or "").strip()
    return parse_percent(raw, "the budget") if raw else None


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
    try:
        listing = conflict_page(project, **_place(request.args))
    except ListingError as exc:
        abort(400, str(exc))
    workers = db.session.scalars(
        select(User).where(User.role == Role.WORKER, User.active.is_(True)).order_by(User.username)
    ).all()
    resolver, views = _resolver_views(project)
    return render_template(
        "projects/conflicts.html", project=project, listing=listing, states=STATES,
        per_page_choices=PER_PAGE, workers=workers, resolver=resolver, views=views,
    )  # fmt: skip


def _back(project, pair_ids=(), anchor: str | None = None):
    """To the listing the form came from, at the first acted-on row still there, else at the
    row now in its place (``index`` on the page), else at the queue's head."""
    place = _place(request.form)
    try:
        listing = conflict_page(project, **place)
    except ListingError:
        place, listing = _place({}), conflict_page(project)
    ids = [item.pair_id for item in listing.items]
    kept = [p for p in pair_ids if p in ids]
    index = request.form.get("index", 0, type=int) or 0
    if anchor is not None:
        pass
    elif kept:
        anchor = f"conflict-{kept[0]}"
    elif ids:
        anchor = f"conflict-{ids[min(max(index, 0), len(ids) - 1)]}"
    else:
        anchor = "queue"
    query = {k: v for k, v in {**place, "page": listing.page}.items() if v not in (None, "all")}
    return redirect(
        url_for("projects.conflict_queue", project_id=project.id, **query) + "#" + anchor
    )


def _act(project_id: int, action, done, pair_ids=(), anchor: str | None = None):
    """Run ``action(project)``; commit and flash ``done`` (a text, or a function of the
    action's result), or roll back and flash why not; then back to the same place."""
    project = changeable_project(project_id)
    try:
        result = action(project)
    except (ConflictError, RevealRefused, ValueError) as exc:
        db.session.rollback()
        flash(f"Not done: {exc}", "error")
    else:
        db.session.commit()
        flash(done(result) if callable(done) else done, "info")
    return _back(project, pair_ids, anchor)


@bp.post("/<int:project_id>/conflicts/policy")
@roles_required(*MANAGERS)
def conflict_policy(project_id: int):
    form = request.form

    def save(project):
        budget = _budget("resolver_budget")
        budget = project.resolver_budget if budget is None else budget
        set_conflict_policy(project, form.get("policy", ""), budget, by=current_user)

    return _act(project_id, save, "Conflict policy saved.", anchor="policy")


def _worker(name: str) -> User:
    worker = db.session.scalar(select(User).where(User.username == name))
    if worker is None:
        raise ConflictError(f"no worker {name!r}")
    return worker


@bp.post("/<int:project_id>/conflicts/<int:pair_id>/refer")
@roles_required(*MANAGERS)
def conflict_refer(project_id: int, pair_id: int):
    name = request.form.get("worker", "")
    return _act(
        project_id,
        lambda p: refer_conflict(p, pair_id, _worker(name), _budget("budget"), by=current_user),
        f"Pair {pair_id} referred to {name}.",
        [pair_id],
    )


@bp.post("/<int:project_id>/conflicts/<int:pair_id>/resolve")
@roles_required(*MANAGERS)
def conflict_resolve(project_id: int, pair_id: int):
    decision, confidence = request.form.get("decision", ""), request.form.get("confidence")
    return _act(
        project_id,
        lambda p: resolve_conflict(p, pair_id, decision, confidence or None, by=current_user),
        f"Pair {pair_id} resolved: {decision}.",
        [pair_id],
    )


def _summary(verb: str):
    def say(result) -> str:
        text = f"{len(result.done)} conflict(s) {verb}"
        if result.skipped:
            reasons = "; ".join(f"pair {p}: {why}" for p, why in result.skipped[:10])
            more = f" and {len(result.skipped) - 10} more" if len(result.skipped) > 10 else ""
            text += f"; {len(result.skipped)} skipped ({reasons}{more})"
        return text + "."

    return say


@bp.post("/<int:project_id>/conflicts/bulk")
@roles_required(*MANAGERS)
def conflict_bulk(project_id: int):
    """The selected rows (``pair``) resolved as one answer, or referred to one worker."""
    form = request.form
    pair_ids = [int(p) for p in form.getlist("pair") if p.isdigit() and len(p) < 12]
    if form.get("action") == "refer":
        return _act(
            project_id,
            lambda p: refer_conflicts(
                p, pair_ids, _worker(form.get("worker", "")), _budget("budget"), by=current_user
            ),
            _summary(f"referred to {form.get('worker', '')}"),
            pair_ids,
        )
    decision, confidence = form.get("decision", ""), form.get("confidence") or None
    return _act(
        project_id,
        lambda p: resolve_conflicts(p, pair_ids, decision, confidence, by=current_user),
        _summary(f"resolved as {decision}"),
        pair_ids,
    )


@bp.post("/<int:project_id>/conflicts/<int:pair_id>/open")
@roles_required(*MANAGERS)
def conflict_open(project_id: int, pair_id: int):
    return _act(
        project_id,
        lambda p: open_for_resolution(p, pair_id, current_user),
        f"Pair {pair_id} is in your resolver assignment; reveals are charged to its budget.",
        [pair_id],
    )


@bp.post("/<int:project_id>/conflicts/<int:pair_id>/reveal")
@roles_required(*MANAGERS)
def conflict_reveal(project_id: int, pair_id: int):
    row, attribute = request.form.get("row", type=int), request.form.get("attribute", "")
    return _act(
        project_id,
        lambda p: reveal_for_resolution(p, pair_id, row, attribute, by=current_user),
        "Revealed.",
        [pair_id],
    )
