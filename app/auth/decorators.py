"""Role checks for views: 401 when not logged in, 403 for the wrong role; token re-checks; the
signed-in account and an account by id as the session's own rows."""

from __future__ import annotations

from functools import wraps

from flask import abort, redirect, request, url_for
from flask_login import current_user

from app.extensions import db
from app.models import User


def roles_required(*roles: str):
    """Let only users with one of ``roles`` through."""

    def decorator(view):
        @wraps(view)
        def wrapped(*args, **kwargs):
            if not current_user.is_authenticated:
                if request.blueprint == "api":
                    abort(401)
                return redirect(url_for("auth.login", next=request.full_path))
            if current_user.role not in roles:
                abort(403)
            return view(*args, **kwargs)

        return wrapped

    return decorator


def checks_token_itself(view):
    """Mark a write view whose own first statement re-checks the bearer token and its account
    (:func:`app.auth.token_cache.request_token`): its request is authenticated from the token
    cache, without the fresh look-up other writes make (one statement, and on PostgreSQL the
    transaction it would open, fewer on the reveal's hot path)."""
    view.checks_token_itself = True
    return view


def signed_in() -> User:
    """The signed-in account as this request's session row (``current_user`` may be a cached,
    detached copy: :mod:`app.auth.token_cache`)."""
    return db.session.get(User, current_user.id)


def user_or_404(user_id: int) -> User:
    """The account ``user_id``, or a 404 "no such user"."""
    user = db.session.get(User, user_id)
    if user is None:
        abort(404, "no such user")
    return user
