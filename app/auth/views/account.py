"""A user's own account page: choose a new password, see and revoke one's API tokens.

After an admin's password reset the one-time password logs its user in to this page only:
every other page redirects here (an API call through the session gets a 403) until a new
password is chosen. Bearer tokens are separate credentials and are not held back.
"""

from __future__ import annotations

from flask import abort, flash, redirect, render_template, request, url_for
from flask_login import current_user, login_required, login_user

from app.auth.accounts import change_password, revoke_token, tokens_of
from app.auth.blueprint import bp
from app.auth.decorators import signed_in
from app.auth.services import AccountError
from app.extensions import db

#: What a user who must choose a new password may still reach.
OPEN_ENDPOINTS = {"auth.account", "auth.account_password", "auth.logout", "auth.login", "static"}


@bp.before_app_request
def require_new_password():
    bearer = request.headers.get("Authorization", "").startswith("Bearer ")
    if bearer or request.endpoint in OPEN_ENDPOINTS:
        return None
    if not (current_user.is_authenticated and current_user.must_change_password):
        return None
    if request.blueprint == "api":
        abort(403, "choose a new password first (your account page)")
    return redirect(url_for("auth.account"))


@bp.get("/account")
@login_required
def account():
    me = signed_in()
    return render_template("auth/account.html", user=me, tokens=tokens_of(me))


@bp.post("/account/password")
@login_required
def account_password():
    me, form = signed_in(), request.form
    try:
        change_password(me, form.get("current", ""), form.get("new", ""), form.get("repeat", ""))
    except AccountError as exc:
        db.session.rollback()
        flash(f"Password not changed: {exc}.", "error")
        return render_template("auth/account.html", user=me, tokens=tokens_of(me)), 400
    db.session.commit()
    login_user(me)  # this session goes on under the new session version; the others ended
    flash("Password changed. Your other sessions were logged out.", "info")
    return redirect(url_for("auth.index"))


@bp.post("/account/tokens/<int:token_id>/revoke")
@login_required
def account_revoke_token(token_id: int):
    me = signed_in()
    try:
        revoke_token(me, token_id, by=me, via="web")
    except AccountError as exc:
        db.session.rollback()
        flash(f"Not revoked: {exc}.", "error")
    else:
        db.session.commit()
        flash(f"Token {token_id} revoked: it no longer works.", "info")
    return redirect(url_for("auth.account") + "#tokens")
