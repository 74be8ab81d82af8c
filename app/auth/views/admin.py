"""Admins administer accounts: deactivate, reactivate, change a role, reset a password, revoke
tokens; each action is audited (:mod:`app.auth.audit`) and lands back where it was asked."""

from __future__ import annotations

from flask import current_app, flash, redirect, render_template, request, url_for

from app.auth.accounts import (
    activate,
    change_role,
    deactivate,
    reset_password,
    revoke_token,
    settle_refusal,
)
from app.auth.accounts import tokens_of as tokens_list
from app.auth.audit import ACTIONS, account_events
from app.auth.blueprint import bp
from app.auth.decorators import roles_required, signed_in, user_or_404
from app.auth.services import AccountError
from app.extensions import db
from app.models import User

__all__ = ["user_page"]


def _back(user: User):
    """To the page the form came from (the Administration list or the user's page)."""
    if request.form.get("back") == "list":
        return redirect(url_for("analytics.home") + f"#user-{user.id}")
    return redirect(url_for("auth.user_page", user_id=user.id))


def _act(user_id: int, action, done: str):
    user = user_or_404(user_id)
    try:
        action(user)
    except AccountError as exc:
        settle_refusal(exc)
        flash(f"Not done: {exc}.", "error")
    else:
        db.session.commit()
        flash(done.format(user=user.username), "info")
    return _back(user)


@bp.get("/users/<int:user_id>")
@roles_required("admin")
def user_page(user_id: int):
    user = user_or_404(user_id)
    return render_template(
        "auth/user.html", user=user, tokens=tokens_list(user),
        events=account_events(user, limit=200), actions=ACTIONS,
    )  # fmt: skip


@bp.post("/users/<int:user_id>/deactivate")
@roles_required("admin")
def user_deactivate(user_id: int):
    return _act(
        user_id,
        lambda u: deactivate(u, by=signed_in(), via="web"),
        "{user} is deactivated: their sessions and tokens stopped working.",
    )


@bp.post("/users/<int:user_id>/activate")
@roles_required("admin")
def user_activate(user_id: int):
    return _act(
        user_id, lambda u: activate(u, by=signed_in(), via="web"), "{user} is active again."
    )


@bp.post("/users/<int:user_id>/role")
@roles_required("admin")
def user_role(user_id: int):
    role = request.form.get("role", "")
    return _act(
        user_id,
        lambda u: change_role(u, role, by=signed_in(), via="web"),
        f"{{user}} is now {role}.",
    )


@bp.post("/users/<int:user_id>/tokens/<int:token_id>/revoke")
@roles_required("admin")
def user_revoke_token(user_id: int, token_id: int):
    return _act(
        user_id,
        lambda u: revoke_token(u, token_id, by=signed_in(), via="web"),
        f"Token {token_id} of {{user}} revoked: it no longer works.",
    )


@bp.post("/users/<int:user_id>/reset-password")
@roles_required("admin")
def user_reset_password(user_id: int):
    """A one-time password, shown once: its user must choose a new one when logging in."""
    user = user_or_404(user_id)
    try:
        password = reset_password(user, by=signed_in(), via="web")
    except AccountError as exc:
        db.session.rollback()
        flash(f"Not done: {exc}.", "error")
        return _back(user)
    db.session.commit()
    response = current_app.make_response(
        render_template("auth/created.html", user=user, password=password, reset=True)
    )
    response.headers["Cache-Control"] = "no-store"  # the password must not stay in a cache
    return response
