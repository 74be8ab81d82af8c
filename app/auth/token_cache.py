"""Token -> user for a few seconds per process, so an API client's burst of requests does not
look its token up once per request.

The cache keeps a detached copy of the user's columns and attaches a copy of it to each
request's session without a query (``Session.merge(load=False)``). A token is only ever
looked up by its SHA-256 digest; unknown tokens are never cached. The price: a change to the
user (deactivation, role) or the token reaches a process within ``TOKEN_CACHE_SECONDS``
(default 10; 0 turns the cache off).
"""

from __future__ import annotations

import time

from flask import current_app
from sqlalchemy.orm import make_transient_to_detached

from app.auth.services import user_for_token
from app.extensions import db
from app.models import User
from app.models.user import hash_token

MAX_CACHED = 4096


def cached_user_for_token(plain: str) -> User | None:
    """The active user ``plain`` belongs to, from the cache or :func:`user_for_token`."""
    ttl = current_app.config.get("TOKEN_CACHE_SECONDS", 10)
    if ttl <= 0:
        return user_for_token(plain)
    cache = current_app.extensions.setdefault("mindfirl_tokens", {})
    digest, now = hash_token(plain), time.monotonic()
    hit = cache.get(digest)
    if hit is not None and hit[0] > now:
        return db.session.merge(hit[1], load=False)
    user = user_for_token(plain)
    if user is not None:
        if len(cache) >= MAX_CACHED:
            cache.clear()
        cache[digest] = (now + ttl, _detached_copy(user))
    return user


def _detached_copy(user: User) -> User:
    copy = User(**{c.key: getattr(user, c.key) for c in User.__table__.columns})
    make_transient_to_detached(copy)
    return copy
