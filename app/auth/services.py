"""Account operations: create users, issue tokens, check passwords with throttling."""

from __future__ import annotations

import datetime as dt
import secrets
from dataclasses import dataclass

from flask import current_app
from sqlalchemy import select

from app.extensions import db
from app.models import ApiToken, Role, User
from app.models.base import utcnow
from app.models.user import hash_token


class AccountError(ValueError):
    """A user-facing problem with an account operation."""


def create_user(username: str, role: str, password: str | None = None) -> tuple[User, str]:
    """Create a user; return it and its password (generated when none is given)."""
    username = username.strip()
    if not username or len(username) > 80:
        raise AccountError("a username needs 1 to 80 characters")
    try:
        role = Role(role).value
    except ValueError:
        raise AccountError(f"unknown role {role!r}: use admin, manager or worker") from None
    if db.session.scalar(select(User).where(User.username == username)):
        raise AccountError(f"user {username!r} exists already")
    if password is None:
        password = secrets.token_urlsafe(12)
    elif len(password) < 8:
        raise AccountError("a password needs at least 8 characters")
    user = User(username=username, role=role)
    user.set_password(password)
    db.session.add(user)
    db.session.flush()
    return user, password


def issue_token(user: User) -> str:
    token, plain = ApiToken.issue(user)
    db.session.add(token)
    db.session.flush()
    return plain


def user_for_token(plain: str) -> User | None:
    token = db.session.scalar(select(ApiToken).where(ApiToken.token_hash == hash_token(plain)))
    if token is None or not token.user.active:
        return None
    return token.user


@dataclass(frozen=True)
class LoginResult:
    user: User | None
    error: str | None = None


def authenticate(username: str, password: str) -> LoginResult:
    """Check a password, counting failures and locking the account after too many.

    An unknown user and a wrong password give the same message, so the form does not tell
    which usernames exist.
    """
    wrong = LoginResult(None, "Wrong username or password.")
    user = db.session.scalar(select(User).where(User.username == username.strip()))
    if user is None:
        return wrong
    now = utcnow()
    if user.locked_until is not None and _aware(user.locked_until) > now:
        minutes = max(1, round((_aware(user.locked_until) - now).total_seconds() / 60))
        return LoginResult(None, f"Too many failed logins. Try again in {minutes} minute(s).")
    if not user.check_password(password):
        user.failed_logins += 1
        if user.failed_logins >= current_app.config["LOGIN_MAX_FAILURES"]:
            seconds = current_app.config["LOGIN_LOCK_SECONDS"]
            user.locked_until = now + dt.timedelta(seconds=seconds)
            user.failed_logins = 0
        return wrong
    if not user.active:
        return LoginResult(None, "This account is disabled.")
    user.failed_logins = 0
    user.locked_until = None
    return LoginResult(user)


def _aware(moment: dt.datetime) -> dt.datetime:
    # SQLite returns naive datetimes even for timezone-aware columns.
    return moment if moment.tzinfo else moment.replace(tzinfo=dt.UTC)
