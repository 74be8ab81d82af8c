"""Account operations: create users, issue tokens, check passwords, end sessions."""

from __future__ import annotations

import datetime as dt
import secrets
from dataclasses import dataclass
from functools import cache

from flask import current_app
from sqlalchemy import select, update
from werkzeug.security import check_password_hash, generate_password_hash

from app.auth import audit
from app.extensions import db
from app.models import ApiToken, Role, User
from app.models.base import utcnow
from app.models.user import hash_token, password_method

MAX_PASSWORD_CHARS = 200  # the login form's limit


class AccountError(ValueError):
    """A user-facing problem with an account operation."""


def create_user(
    username: str,
    role: str,
    password: str | None = None,
    *,
    by: User | None = None,
    via: str = "cli",
) -> tuple[User, str]:
    """Create a user; return it and its password (generated when none is given).

    The creation is audited (:mod:`app.auth.audit`) as done ``by`` someone (None: the
    command line) ``via`` a door.
    """
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
    else:
        check_new_password(password)
    user = User(username=username, role=role)
    user.set_password(password)
    db.session.add(user)
    db.session.flush()
    audit.record(user, "created", by=by, via=via, detail=f"as {role}")
    return user, password


def check_new_password(password: str) -> None:
    """Raise :class:`AccountError` unless ``password`` may be a password (8 to 200 characters)."""
    if len(password) < 8:
        raise AccountError("a password needs at least 8 characters")
    if len(password) > MAX_PASSWORD_CHARS:
        raise AccountError(f"a password has at most {MAX_PASSWORD_CHARS} characters")


def issue_token(
    user: User, label: str | None = None, *, by: User | None = None, via: str = "cli"
) -> str:
    """Create an API token for ``user``; return the plain token (shown once, stored hashed)."""
    label = (label or "").strip() or None
    if label is not None and len(label) > 80:
        raise AccountError("a token label has at most 80 characters")
    token, plain = ApiToken.issue(user, label)
    db.session.add(token)
    db.session.flush()
    audit.record(user, "token_issued", by=by, via=via, detail=f"token {token.id}")
    return plain


#: A token's "last used" is written again once it is this old (one write a minute at most).
TOUCH_SECONDS = 60


def user_for_token(plain: str) -> User | None:
    """The active user holding the API token ``plain`` (one query: token and user joined);
    the token's ``last_used_at`` is brought up to date (to the minute) on the way."""
    query = (
        select(User, ApiToken.id, ApiToken.last_used_at)
        .join(ApiToken, ApiToken.user_id == User.id)
        .where(ApiToken.token_hash == hash_token(plain), User.active.is_(True))
    )
    row = db.session.execute(query).first()
    if row is None:
        return None
    user, token_id, used = row
    _touch(token_id, used)
    return user


def _touch(token_id: int, used) -> None:
    """Write the token's use unless it was written less than :data:`TOUCH_SECONDS` ago, and
    commit it at once: the look-up comes first in a request, with nothing else pending (a
    GET request commits nothing; a write request's transaction should not start with it)."""
    now = utcnow()
    if used is not None:
        used = used if used.tzinfo else used.replace(tzinfo=dt.UTC)  # SQLite: naive UTC
        if (now - used).total_seconds() < TOUCH_SECONDS:
            return
    session = db.session()
    session.execute(update(ApiToken).where(ApiToken.id == token_id).values(last_used_at=now))
    keep, session.expire_on_commit = session.expire_on_commit, False  # the user stays loaded
    try:
        session.commit()
    finally:
        session.expire_on_commit = keep


@dataclass(frozen=True)
class LoginResult:
    user: User | None
    error: str | None = None


WRONG = "Wrong username or password."


@cache
def _dummy_hash(method: str) -> str:
    # the same work as a real check, for names that match no account
    return generate_password_hash(secrets.token_urlsafe(16), method=method)


def authenticate(username: str, password: str) -> LoginResult:
    """Check a password; wrong user and wrong password take the same path and message.

    An unknown (or impossible: too long, NUL) username is checked against a dummy hash, so
    the answer takes as long as for a real account. Failures are counted with one atomic
    ``UPDATE`` (no read-modify-write race); throttling is :mod:`app.auth.throttle`'s, so
    there is no lock that strangers could trigger.
    """
    name = username.strip()
    user = None
    if name and len(name) <= current_app.config["MAX_USERNAME_CHARS"] and "\x00" not in name:
        user = db.session.scalar(select(User).where(User.username == name))
    if user is None:
        check_password_hash(_dummy_hash(password_method()), password)
        return LoginResult(None, WRONG)
    if not user.check_password(password):
        db.session.execute(
            update(User)
            .where(User.id == user.id)
            .values(failed_logins=User.failed_logins + 1)
            .execution_options(synchronize_session=False)
        )
        return LoginResult(None, WRONG)
    if not user.active:
        return LoginResult(None, "This account is disabled.")
    if user.failed_logins:
        user.failed_logins = 0
    return LoginResult(user)


def end_sessions(user: User) -> None:
    """Invalidate every browser session of ``user`` (logout): bump the session version."""
    db.session.execute(
        update(User)
        .where(User.id == user.id)
        .values(session_version=User.session_version + 1)
        .execution_options(synchronize_session=False)
    )
