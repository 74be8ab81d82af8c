"""Role checks for views: 401 when not logged in, 403 for the wrong role; token re-checks."""

from __future__ import annotations

from functools import wraps

from flask import abort, redirect, request, url_for
from flask_login import current_user


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
