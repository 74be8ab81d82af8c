"""The account audit: one append-only :class:`~app.models.AccountEvent` per change to an account.

Rows say who did what to whom, when and through which door (``web``, ``api``, ``cli``); the
detail names what changed (``worker -> manager``, ``token 4``), never a password or a token.
"""

from __future__ import annotations

from sqlalchemy import select
from sqlalchemy.orm import selectinload

from app.extensions import db
from app.models import AccountEvent, User

__all__ = ["ACTIONS", "VIA", "account_events", "record"]

#: What an event can say happened, and how a page reads it.
ACTIONS = {
    "created": "account created",
    "deactivated": "deactivated",
    "activated": "reactivated",
    "role_changed": "role changed",
    "password_reset": "password reset (one-time password issued)",
    "password_changed": "password changed by its user",
    "token_issued": "API token issued",
    "token_revoked": "API token revoked",
    "refused": "change refused (it would leave no active admin or lock one out)",
}
VIA = ("web", "api", "cli")


def record(
    user: User, action: str, *, by: User | None, via: str, detail: str | None = None
) -> AccountEvent:
    """Append one event about ``user`` in the session's transaction (the caller commits)."""
    if action not in ACTIONS or via not in VIA:
        raise ValueError(f"unknown account event {action!r} via {via!r}")
    event = AccountEvent(
        user_id=user.id, actor_id=by.id if by is not None else None,
        action=action, detail=detail, via=via,
    )  # fmt: skip
    db.session.add(event)
    return event


def account_events(user: User | None = None, limit: int = 50) -> list[AccountEvent]:
    """The newest events (of ``user`` only, if given), newest first, actors loaded."""
    query = select(AccountEvent).options(
        selectinload(AccountEvent.actor), selectinload(AccountEvent.user)
    )
    if user is not None:
        query = query.where(AccountEvent.user_id == user.id)
    return list(db.session.scalars(query.order_by(AccountEvent.id.desc()).limit(limit)))
