"""Account operations: create users, issue tokens, check passwords, end sessions."""

from __future__ import annotations

import datetime as dt
import secrets
from dataclasses import dataclass
from functools import cache

from flask import current_app
from sqlalchemy import select, update
from sqlalchemy.exc import OperationalError
from sqlalchemy.orm import make_transient_to_detached
from werkzeug.security import check_password_hash, generate_password_hash

from app.auth import audit
from app.database import BUSY_TIMEOUT_MS, reads_only
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
    """The active user holding the API token ``plain``, detached (:func:`detached_user`); the
    token's ``last_used_at`` is brought up to date (to the minute) on the way.

    One query (token and user joined) on a connection of its own, not the request's session:
    the request's transaction does not begin with it (on SQLite a write request's begins
    ``BEGIN IMMEDIATE`` and holds the write lock, which the "last used" write in a
    transaction of its own would then wait for; on PostgreSQL the reveal and the answer stay
    in autocommit).
    """
    query = (
        select(*User.__table__.columns, ApiToken.id, ApiToken.last_used_at)
        .join(ApiToken, ApiToken.user_id == User.id)
        .where(ApiToken.token_hash == hash_token(plain), User.active.is_(True))
    )
    engine = db.session.get_bind(mapper=ApiToken.__mapper__)
    with engine.connect() as connection:
        row = connection.execute(query).first()
    if row is None:
        return None
    *columns, token_id, used = row
    _touch(token_id, used)
    return detached_user(dict(zip(_USER_KEYS, columns, strict=True)))


#: The attribute of each column of ``users``, in the table's order.
_USER_KEYS = [User.__mapper__.get_property_by_column(c).key for c in User.__table__.columns]


def detached_user(values: dict) -> User:
    """A new detached ``User`` holding ``values`` (every column's attribute), as a query
    would have loaded it, in no session: it can be added to one, but loads no relationship."""
    user = User.__mapper__.class_manager.new_instance()
    user.__dict__.update(values)
    make_transient_to_detached(user)
    return user


def _touch(token_id: int, used) -> None:
    """Write the token's use unless it was written less than :data:`TOUCH_SECONDS` ago, in a
    transaction of its own (a GET request commits nothing; a write request's transaction
    should not start with it).

    Never waits: "last used" is to the minute, so while the database's write lock is held
    (a reveal committing, or this thread's own transaction outside a request) the write is
    left to the token's next use. A request is never held up by it, nor blocked by itself.
    """
    now = utcnow()
    if used is not None:
        used = used if used.tzinfo else used.replace(tzinfo=dt.UTC)  # SQLite: naive UTC
        if (now - used).total_seconds() < TOUCH_SECONDS:
            return
    engine = db.session.get_bind(mapper=ApiToken.__mapper__)
    sqlite = engine.dialect.name == "sqlite"
    try:
        with reads_only(), engine.begin() as connection:  # deferred: no writer turn to wait for
            if sqlite:
                connection.exec_driver_sql("PRAGMA busy_timeout = 0")
            else:
                connection.exec_driver_sql("SET LOCAL lock_timeout = '50ms'")
            try:
                query = update(ApiToken).where(ApiToken.id == token_id)
                connection.execute(query.values(last_used_at=now))
            finally:
                if sqlite:
                    connection.exec_driver_sql(f"PRAGMA busy_timeout = {BUSY_TIMEOUT_MS}")
    except OperationalError:  # locked: written at the next use
        return


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
