"""Token -> user for a few seconds per process, so an API client's burst of requests does not
look its token up once per request.

The cache keeps the user's column values and gives each request a detached user of its own,
made from them without a query and attached to no session (attaching one by
``Session.merge`` cost ~0.15 ms a request, more than the rest of the lookup). A request's
code may still add it to its session (a relationship cascade does): it is that request's
object alone. What a detached user cannot do is load a relationship (``user.tokens``), nor
join a session that has loaded the same user itself: code that needs either queries the user
by ``current_user.id``.

A token is only ever looked up by its SHA-256 digest; unknown tokens are never cached. A
request that may write (any method but GET, HEAD and OPTIONS: a reveal, an answer, every
change) reads its token and user afresh (``fresh``) and refreshes the entry: a deactivation,
a revoked token or a new role, committed in any process or behind the app's back, stops the
next reveal or write everywhere, not only in the process that made it. Reads may see the
old account for up to ``TOKEN_CACHE_SECONDS`` (default 10; 0 turns the cache off) in other
processes; in the process that made the change, an account change made through
:mod:`app.auth.accounts` empties the account's entries at once (:func:`forget_user`).
"""

from __future__ import annotations

import time

from flask import current_app, g
from sqlalchemy import String, and_, bindparam, cast, exists, inspect, or_, select

from app.auth.services import detached_user, user_for_token
from app.models import ApiToken, User
from app.models.user import Role, hash_token

MAX_CACHED = 4096
# The roles that manage projects: a resolver assignment's holder (their conflicts' reveals).
MANAGING = (Role.MANAGER.value, Role.ADMIN.value)
_COLUMNS = inspect(User).column_attrs  # what a cached user keeps


def cached_user_for_token(plain: str, *, fresh: bool = False) -> User | None:
    """The active user ``plain`` belongs to, from the cache or the database (always the
    database when ``fresh``: a request that may write)."""
    ttl = current_app.config.get("TOKEN_CACHE_SECONDS", 10)
    if ttl <= 0:
        return user_for_token(plain)
    cache = current_app.extensions.setdefault("mindfirl_tokens", {})
    digest, now = hash_token(plain), time.monotonic()
    hit = None if fresh else cache.get(digest)
    if hit is not None and hit[0] > now:
        return detached_user(hit[1])
    user = user_for_token(plain)
    if user is None:
        cache.pop(digest, None)  # revoked or deactivated: reads in this process stop too
        return None
    if len(cache) >= MAX_CACHED:
        cache.clear()
    cache[digest] = (now + ttl, {a.key: getattr(user, a.key) for a in _COLUMNS})
    return user


def forget_user(user_id: int) -> None:
    """Drop every cached token of ``user_id`` in this process (after an account change)."""
    cache = current_app.extensions.get("mindfirl_tokens")
    if not cache:
        return
    for digest in [d for d, (_, values) in cache.items() if values.get("id") == user_id]:
        cache.pop(digest, None)


def remember_request_token(plain: str) -> None:
    """Keep this request's token digest for the view that re-checks it (:func:`request_token`)."""
    g.mindfirl_token = hash_token(plain)


def request_token() -> str | None:
    """The SHA-256 digest of this request's bearer token when its view re-checks it itself
    (:func:`app.auth.decorators.checks_token_itself`), else None (a browser session, whose
    account was read afresh, or a view that did not ask)."""
    return g.get("mindfirl_token")


def account_holds(user_id, role: str, resolver=None):
    """SQL, for a view's own statement: the account ``user_id`` (a column) is active with
    ``role`` and, for a bearer request, still holds the token whose digest is bound as
    ``:token`` (None: a browser session, read afresh already). ``resolver``: a column that,
    where true, asks for one of :data:`MANAGING` instead (a manager's resolver assignment)."""
    token = bindparam("token", type_=String)
    may = User.role == role
    if resolver is not None:
        managing = or_(*(User.role == name for name in MANAGING))  # no IN: compiled once
        may = or_(and_(resolver, managing), and_(~resolver, may))
    return and_(
        exists().where(User.id == user_id, User.active, may),
        or_(
            cast(token, String).is_(None),
            exists().where(ApiToken.user_id == user_id, ApiToken.token_hash == token),
        ),
    )


def account_refusal(connection, user_id: int, token: str | None, role: str | tuple[str, ...]):
    """``(status, message)`` when :func:`account_holds` is false for ``user_id``, else None:
    401 for a deactivated account or a revoked token, 403 for another role (``role``: the
    one the account needs, or a tuple of those it may have)."""
    roles = (role,) if isinstance(role, str) else role
    account = connection.execute(select(User.active, User.role).where(User.id == user_id)).first()
    held = (
        token is None
        or connection.execute(
            select(ApiToken.id).where(ApiToken.user_id == user_id, ApiToken.token_hash == token)
        ).first()
    )
    if account is None or not account.active or not held:
        return 401, "this token or account no longer works"
    if account.role not in roles:
        return 403, f"this account is no longer a {' or '.join(roles)}'s"
    return None
