"""Account administration: deactivate, reactivate, change a role, reset or change a password,
list and revoke API tokens.

Each operation changes the account, writes one audit row (:mod:`app.auth.audit`) and flushes;
the request or CLI boundary commits. ``by`` is the admin (or the user themselves) acting, None
on the command line. Whatever takes access away works at once: deactivation and a password
reset end the account's browser sessions (its session version moves), and this process's
token cache forgets the account (:func:`app.auth.token_cache.forget_user`).

Whatever can take the admin role away from an active admin (deactivation, a role change, any
later one) calls :func:`_keep_an_admin`: it locks the admins' rows, reads them afresh and only
then checks, so of two admins removing each other at the same moment the second one waits and
is refused (issue 41). Such a refusal raises :class:`AdminRefused`; the caller's
:func:`settle_refusal` rolls the change back and audits the refusal.
"""

from __future__ import annotations

import secrets

from sqlalchemy import and_, func, or_, select

from app.auth import audit
from app.auth.services import AccountError, check_new_password, end_sessions
from app.auth.token_cache import forget_user
from app.database import begin_write
from app.extensions import db
from app.models import ApiToken, Role, User

__all__ = [
    "AdminRefused",
    "activate",
    "change_password",
    "change_role",
    "deactivate",
    "reset_password",
    "revoke_token",
    "settle_refusal",
    "token_counts",
    "tokens_of",
    "user_named",
]


def user_named(username: str) -> User:
    """The user called ``username``; :class:`AccountError` when there is none."""
    user = db.session.scalar(select(User).where(User.username == username))
    if user is None:
        raise AccountError(f"no user {username!r}")
    return user


class AdminRefused(AccountError):
    """A change refused because it would leave no active admin or lock its admin out."""

    def __init__(self, message: str, user: User, by: User | None, via: str, what: str):
        super().__init__(message)
        self.user_id, self.by_id, self.via, self.what = user.id, by and by.id, via, what


def _lock_admins(user: User, by: User | None) -> list[User]:
    """Hold the active admins' rows (and ``user``'s and ``by``'s) to the transaction's end,
    their attributes read afresh.

    PostgreSQL: ``SELECT ... FOR NO KEY UPDATE`` in id order (two changes queue instead of
    deadlocking; a row that merely references a user, an audit or a reveal, is not held up);
    one that waited reads the rows as the other committed them. SQLite: the
    write lock (:func:`~app.database.begin_write`; a transaction that began as a read takes it
    here), then the same rows read again.
    """
    connection = db.session.connection()
    begin_write(connection)
    ids = [user.id] + ([by.id] if by is not None else [])
    query = (
        select(User)
        .where(or_(and_(User.role == Role.ADMIN, User.active.is_(True)), User.id.in_(ids)))
        .order_by(User.id)
        .execution_options(populate_existing=True)
    )
    if connection.dialect.name != "sqlite":  # NO KEY UPDATE: inserts that reference a user go on
        query = query.with_for_update(key_share=True)
    return list(db.session.scalars(query))


def _keep_an_admin(user: User, by: User | None, via: str, what: str) -> None:
    """Refuse (:class:`AdminRefused`) a change that would take ``user``'s admin role away from
    the last active admin, from ``by`` themself, or by someone no longer an active admin."""
    locked = _lock_admins(user, by)
    if by is not None and by.id == user.id:
        message = f"you cannot {what} your own account; ask another admin"
        raise AdminRefused(message, user, by, via, f"{what}: own account")
    if by is not None and not (by.active and by.role == Role.ADMIN):
        message = "you are no longer an active admin"
        raise AdminRefused(message, user, by, via, f"{what}: not an active admin")
    if user.role != Role.ADMIN or not user.active:
        return
    if not any(u.role == Role.ADMIN and u.active and u.id != user.id for u in locked):
        message = f"{user.username} is the last active admin: {what} another first"
        raise AdminRefused(message, user, by, via, f"{what}: the last active admin")


def settle_refusal(exc: AccountError) -> None:
    """Roll back a refused change; audit an :class:`AdminRefused` one (committed at once)."""
    db.session.rollback()
    if isinstance(exc, AdminRefused):
        user = db.session.get(User, exc.user_id)
        by = db.session.get(User, exc.by_id) if exc.by_id is not None else None
        audit.record(user, "refused", by=by, via=exc.via, detail=exc.what)
        db.session.commit()


def _cut_off(user: User) -> None:
    """End the account's browser sessions and forget its tokens in this process."""
    end_sessions(user)
    db.session.flush()
    db.session.refresh(user)
    forget_user(user.id)


def deactivate(user: User, *, by: User | None, via: str) -> None:
    """Disable ``user``: no login, no session, no token works from now on."""
    _keep_an_admin(user, by, via, "deactivate")
    if not user.active:
        raise AccountError(f"{user.username} is deactivated already")
    user.active = False
    audit.record(user, "deactivated", by=by, via=via)
    _cut_off(user)


def activate(user: User, *, by: User | None, via: str) -> None:
    """Let ``user`` log in again (their tokens work again unless revoked)."""
    if user.active:
        raise AccountError(f"{user.username} is active already")
    user.active = True
    audit.record(user, "activated", by=by, via=via)
    db.session.flush()
    forget_user(user.id)


def change_role(user: User, role: str, *, by: User | None, via: str) -> None:
    """Give ``user`` another role (it takes effect on their next request)."""
    try:
        role = Role(role).value
    except ValueError:
        raise AccountError(f"unknown role {role!r}: use admin, manager or worker") from None
    if role != Role.ADMIN:
        _keep_an_admin(user, by, via, "take the admin role from")
    if role == user.role:
        raise AccountError(f"{user.username} is a {role} already")
    audit.record(user, "role_changed", by=by, via=via, detail=f"{user.role} -> {role}")
    user.role = role
    db.session.flush()
    forget_user(user.id)


def reset_password(user: User, *, by: User | None, via: str) -> str:
    """Give ``user`` a generated one-time password and return it (shown once, stored hashed).

    It logs them in once, to choose a new password (``must_change_password``); their
    sessions end now. Their API tokens are not touched: revoke them separately.
    """
    if by is not None and by.id == user.id:
        raise AccountError("change your own password on your account page")
    password = secrets.token_urlsafe(12)
    user.set_password(password)
    user.must_change_password = True
    user.failed_logins = 0
    audit.record(user, "password_reset", by=by, via=via)
    _cut_off(user)
    return password


def change_password(user: User, current: str, new: str, repeat: str | None = None) -> None:
    """``user`` chooses a new password, proving the current (or one-time) one.

    Their other sessions end (the caller logs the current one in again).
    """
    if not user.check_password(current):
        raise AccountError("the current password is wrong")
    if repeat is not None and new != repeat:
        raise AccountError("the two new passwords differ")
    check_new_password(new)
    if new == current:
        raise AccountError("the new password must differ from the current one")
    user.set_password(new)
    user.must_change_password = False
    audit.record(user, "password_changed", by=user, via="web")
    _cut_off(user)


def tokens_of(user: User) -> list[ApiToken]:
    """``user``'s API tokens, oldest first (never the token itself: only its hash is kept)."""
    query = select(ApiToken).where(ApiToken.user_id == user.id).order_by(ApiToken.id)
    return list(db.session.scalars(query))


def token_counts() -> dict[int, int]:
    """How many API tokens each user holds, by user id (users without any are absent)."""
    query = select(ApiToken.user_id, func.count()).group_by(ApiToken.user_id)
    return dict(db.session.execute(query).all())


def revoke_token(user: User, token_id: int, *, by: User | None, via: str) -> None:
    """Delete ``user``'s token ``token_id``; it stops working at once in this process."""
    token = db.session.get(ApiToken, token_id)
    if token is None or token.user_id != user.id:
        raise AccountError(f"{user.username} has no token {token_id}")
    audit.record(user, "token_revoked", by=by, via=via, detail=f"token {token_id}")
    db.session.delete(token)
    db.session.flush()
    forget_user(user.id)
