"""Account administration over JSON: what the Administration page and ``flask users`` do.

Admins list, create, deactivate and reactivate accounts, change roles, reset passwords (a
one-time password, answered once with ``Cache-Control: no-store``) and list and revoke any
account's API tokens; every user lists and revokes their own tokens (``/me/tokens``). Each
change is the service's of :mod:`app.auth.accounts` (audited ``via`` ``api``; the last active
admin stays one: 409), never a password or a token in a log or an event.
"""

from __future__ import annotations

import datetime as dt

from flask import abort, jsonify
from flask_login import current_user
from sqlalchemy import select

from app.api.blueprint import bp
from app.api.openapi import accounts as schemas
from app.api.openapi import documented
from app.api.projects import json_body
from app.auth import accounts
from app.auth.audit import account_events
from app.auth.decorators import roles_required, signed_in, user_or_404
from app.auth.services import AccountError, create_user
from app.extensions import db
from app.models import ApiToken, User

_EVERYONE = ("admin", "manager", "worker")


def _iso(value) -> str | None:
    """A time in ISO 8601 with its offset (SQLite gives naive UTC times back)."""
    if value is None:
        return None
    return (value if value.tzinfo else value.replace(tzinfo=dt.UTC)).isoformat()


def _user_json(user: User, tokens: int) -> dict:
    return {
        "id": user.id, "username": user.username, "role": user.role, "active": user.active,
        "must_change_password": bool(user.must_change_password), "tokens": tokens,
        "created_at": _iso(user.created_at),
    }  # fmt: skip


def _token_json(token: ApiToken) -> dict:
    return {
        "id": token.id, "label": token.label, "created_at": _iso(token.created_at),
        "last_used_at": _iso(token.last_used_at),
    }  # fmt: skip


def _changed(user_id: int, change) -> tuple:
    """Run ``change(user)``: 200 with the account, 409 for a refusal that would leave no
    active admin, 400 for any other refusal (nothing changed then)."""
    user = user_or_404(user_id)
    try:
        result = change(user)
    except accounts.AdminRefused as exc:
        accounts.settle_refusal(exc)
        abort(409, str(exc))
    except AccountError as exc:
        accounts.settle_refusal(exc)
        abort(400, str(exc))
    db.session.commit()
    return user, result


def _counted(user: User) -> dict:
    return _user_json(user, len(accounts.tokens_of(user)))


@bp.get("/users")
@roles_required("admin")
@documented("Every account: role, whether active, how many API tokens", ok=schemas.USERS)
def users_view():
    counts = accounts.token_counts()
    users = db.session.scalars(select(User).order_by(User.username))
    return jsonify(users=[_user_json(u, counts.get(u.id, 0)) for u in users])


@bp.post("/users")
@roles_required("admin")
@documented(
    "Create an account; its generated password is answered once",
    body=schemas.new_user, ok=schemas.PASSWORD_ISSUED, status=201,
)  # fmt: skip
def user_create_view():
    body = json_body()
    try:
        user, password = create_user(body["username"], body["role"], by=signed_in(), via="api")
    except AccountError as exc:
        db.session.rollback()
        abort(400, str(exc))
    db.session.commit()
    response = jsonify(user=_user_json(user, 0), password=password)
    response.status_code, response.headers["Cache-Control"] = 201, "no-store"
    return response


@bp.get("/users/<int:user_id>")
@roles_required("admin")
@documented("One account, its API tokens and its account events", ok=schemas.USER_DETAIL)
def user_view(user_id: int):
    user = user_or_404(user_id)
    tokens = accounts.tokens_of(user)
    events = [
        {"at": _iso(e.at), "action": e.action, "by": e.actor.username if e.actor else None,
         "via": e.via, "detail": e.detail}
        for e in account_events(user, limit=200)
    ]  # fmt: skip
    return jsonify(
        user=_user_json(user, len(tokens)), tokens=[_token_json(t) for t in tokens], events=events
    )


@bp.post("/users/<int:user_id>/deactivate")
@roles_required("admin")
@documented("Deactivate an account: its sessions and tokens stop at once", ok=schemas.USER)
def user_deactivate_view(user_id: int):
    user, _ = _changed(user_id, lambda u: accounts.deactivate(u, by=signed_in(), via="api"))
    return jsonify(_counted(user))


@bp.post("/users/<int:user_id>/activate")
@roles_required("admin")
@documented("Reactivate an account", ok=schemas.USER)
def user_activate_view(user_id: int):
    user, _ = _changed(user_id, lambda u: accounts.activate(u, by=signed_in(), via="api"))
    return jsonify(_counted(user))


@bp.post("/users/<int:user_id>/role")
@roles_required("admin")
@documented("Change an account's role", body=schemas.ROLE_BODY, ok=schemas.USER)
def user_role_view(user_id: int):
    role = json_body()["role"]
    user, _ = _changed(user_id, lambda u: accounts.change_role(u, role, by=signed_in(), via="api"))
    return jsonify(_counted(user))


@bp.post("/users/<int:user_id>/reset-password")
@roles_required("admin")
@documented(
    "Reset a password: a one-time password (answered once) its user must change at login",
    ok=schemas.PASSWORD_ISSUED,
)
def user_reset_password_view(user_id: int):
    user, password = _changed(
        user_id, lambda u: accounts.reset_password(u, by=signed_in(), via="api")
    )
    response = jsonify(user=_counted(user), password=password)
    response.headers["Cache-Control"] = "no-store"
    return response


@bp.delete("/users/<int:user_id>/tokens/<int:token_id>")
@roles_required("admin")
@documented("Revoke one of an account's API tokens (it stops at once)", ok=schemas.TOKENS)
def user_revoke_token_view(user_id: int, token_id: int):
    by = signed_in()
    user, _ = _changed(user_id, lambda u: accounts.revoke_token(u, token_id, by=by, via="api"))
    return jsonify(tokens=[_token_json(t) for t in accounts.tokens_of(user)])


@bp.get("/me/tokens")
@roles_required(*_EVERYONE)
@documented("The caller's API tokens (never a token itself)", ok=schemas.TOKENS)
def my_tokens_view():
    return jsonify(tokens=[_token_json(t) for t in accounts.tokens_of(signed_in())])


@bp.delete("/me/tokens/<int:token_id>")
@roles_required(*_EVERYONE)
@documented("Revoke one of the caller's API tokens (the one sending this too)", ok=schemas.TOKENS)
def my_revoke_token_view(token_id: int):
    me = current_user.id
    user, _ = _changed(me, lambda u: accounts.revoke_token(u, token_id, by=u, via="api"))
    return jsonify(tokens=[_token_json(t) for t in accounts.tokens_of(user)])
