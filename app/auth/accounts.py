"""Account administration: deactivate, reactivate, change a role, reset or change a password,
list and revoke API tokens.

Each operation changes the account, writes one audit row (:mod:`app.auth.audit`) and flushes;
the request or CLI boundary commits. ``by`` is the admin (or the user themselves) acting, None
on the command line. Whatever takes access away works at once: deactivation and a password
reset end the account's browser sessions (its session version moves), and this process's
token cache forgets the account (:func:`app.auth.token_cache.forget_user`).
"""

from __future__ import annotations

import secrets

from sqlalchemy import func, select

from app.auth import audit
from app.auth.services import AccountError, check_new_password, end_sessions
from app.auth.token_cache import forget_user
from app.extensions import db
from app.models import ApiToken, Role, User

__all__ = [
    "activate",
    "change_password",
    "change_role",
    "deactivate",
    "reset_password",
    "revoke_token",
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


def _other_active_admins(user: User) -> int:
    return db.session.scalar(
        select(func.count())
        .select_from(User)
        .where(User.role == Role.ADMIN, User.active.is_(True), User.id != user.id)
    )


def _not_self_or_last_admin(user: User, by: User | None, what: str) -> None:
    if by is not None and by.id == user.id:
        raise AccountError(f"you cannot {what} your own account; ask another admin")
    if user.role == Role.ADMIN and user.active and not _other_active_admins(user):
        raise AccountError(f"{user.username} is the last active admin: {what} another first")


def _cut_off(user: User) -> None:
    """End the account's browser sessions and forget its tokens in this process."""
    end_sessions(user)
    db.session.flush()
    db.session.refresh(user)
    forget_user(user.id)


def deactivate(user: User, *, by: User | None, via: str) -> None:
    """Disable ``user``: no login, no session, no token works from now on."""
    if not user.active:
        raise AccountError(f"{user.username} is deactivated already")
    _not_self_or_last_admin(user, by, "deactivate")
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
    if role == user.role:
        raise AccountError(f"{user.username} is a {role} already")
    if user.role == Role.ADMIN:
        _not_self_or_last_admin(user, by, "take the admin role from")
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
