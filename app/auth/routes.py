"""Login pages, the role home redirect, and request authentication (session or token)."""

from __future__ import annotations

from urllib.parse import urlsplit

from flask import (
    abort,
    current_app,
    flash,
    g,
    redirect,
    render_template,
    request,
    session,
    url_for,
)
from flask_login import current_user, login_required, login_user, logout_user

from app.auth import throttle
from app.auth.blueprint import bp
from app.auth.decorators import roles_required
from app.auth.forms import LoginForm
from app.auth.services import AccountError, authenticate, create_user, end_sessions
from app.auth.token_cache import cached_user_for_token, remember_request_token
from app.extensions import csrf, db, login_manager
from app.models import Role, User

HOME = {Role.ADMIN: "analytics.home", Role.MANAGER: "projects.home", Role.WORKER: "review.home"}


@login_manager.user_loader
def load_user(session_id: str) -> User | None:
    """``<id>.<session version>``: a session from before the last logout no longer loads."""
    user_id, _, version = session_id.partition(".")
    if not (user_id.isdigit() and version.isdigit()) or len(user_id) > 18:
        return None
    user = db.session.get(User, int(user_id))
    if user is None or user.session_version != int(version) or not user.active:
        return None
    return user


@login_manager.request_loader
def load_user_from_token(req) -> User | None:
    header = req.headers.get("Authorization", "")
    if not header.startswith("Bearer "):
        return None
    plain = header.removeprefix("Bearer ").strip()
    fresh = req.method not in ("GET", "HEAD", "OPTIONS")  # a write sees account changes at once
    view = current_app.view_functions.get(req.endpoint)
    if fresh and getattr(view, "checks_token_itself", False):
        fresh = False
        remember_request_token(plain)  # the view's statement checks it
    return cached_user_for_token(plain, fresh=fresh)


@bp.before_app_request
def check_csrf() -> None:
    """Authenticate a bearer token, or check CSRF on a browser POST.

    A request carrying a bearer token is its token's user, whatever session cookie comes
    with it, and it is exempt from CSRF: a browser never attaches an Authorization header by
    itself, so a forged cross-site request cannot ride on a token the way it could ride on a
    session cookie. The token's user is set here, before anything asks for ``current_user``,
    so Flask-Login never opens the session for an API call (its session protection and
    signals cost more than the cached token lookup).
    """
    bearer = request.headers.get("Authorization", "").startswith("Bearer ")
    if bearer:
        user = load_user_from_token(request)
        if user is None:
            # Only failing tokens are throttled per address, never the valid ones from it.
            if not throttle.token_failure_allowed():
                abort(429, "too many failed tokens from this address; wait a minute")
            # An invalid token must not fall back to the session cookie.
            abort(401)
        login_manager._update_request_context_with_user(user)
    # One count per account, session or token alike (app.auth.throttle).
    signed_in = request.endpoint not in (None, "static") and current_user.is_authenticated
    if signed_in and not throttle.account_request_allowed(current_user.id):
        abort(429, "too many requests for this account; slow down")
    if request.method in ("GET", "HEAD", "OPTIONS") or bearer:
        return
    if request.blueprint == "api" and not current_user.is_authenticated:
        return  # nothing for a forged request to ride on: the view answers 401
    if current_app.config.get("WTF_CSRF_ENABLED", True):
        csrf.protect()


@bp.route("/")
def index():
    if not current_user.is_authenticated:
        return redirect(url_for("auth.login"))
    return redirect(url_for(HOME[Role(current_user.role)]))


@bp.route("/login", methods=["GET", "POST"])
def login():
    if current_user.is_authenticated:
        return redirect(url_for("auth.index"))
    form = LoginForm()
    if form.validate_on_submit():
        if not throttle.login_allowed(form.username.data):
            flash("Too many login attempts. Wait a few minutes and try again.", "error")
            return render_template("auth/login.html", form=form), 429
        result = authenticate(form.username.data, form.password.data)
        db.session.commit()
        if result.user is None:
            throttle.login_failed(form.username.data)
            flash(result.error, "error")
            return render_template("auth/login.html", form=form), 401
        login_user(result.user)
        _new_csrf_token()  # a token seen before the login is worth nothing after it
        return redirect(_safe_next(request.args.get("next")) or url_for("auth.index"))
    return render_template("auth/login.html", form=form)


@bp.route("/logout", methods=["POST"])
@login_required
def logout():
    end_sessions(current_user)
    db.session.commit()
    logout_user()
    _new_csrf_token()
    flash("You are logged out.", "info")
    return redirect(url_for("auth.login"))


@bp.post("/users")
@roles_required("admin")
def create_account():
    """An admin creates a user; the generated password is shown once, never stored plain."""
    try:
        user, password = create_user(
            request.form.get("username", ""), request.form.get("role", ""),
            by=db.session.get(User, current_user.id), via="web",
        )  # fmt: skip
    except AccountError as exc:
        db.session.rollback()
        flash(f"No user created: {exc}", "error")
        return redirect(url_for("analytics.home"))
    db.session.commit()
    response = current_app.make_response(
        render_template("auth/created.html", user=user, password=password)
    )
    response.headers["Cache-Control"] = "no-store"  # the password must not stay in a cache
    return response


def _new_csrf_token() -> None:
    """Drop the session's CSRF token: Flask-WTF makes a new one for the next form."""
    name = current_app.config.get("WTF_CSRF_FIELD_NAME", "csrf_token")
    session.pop(name, None)
    g.pop(name, None)


def _safe_next(target: str | None) -> str | None:
    """Follow ``next`` only to a path on this site."""
    if not target:
        return None
    parts = urlsplit(target)
    if parts.scheme or parts.netloc or not target.startswith("/") or target.startswith("//"):
        return None
    return target
