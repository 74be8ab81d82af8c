"""Flask-Limiter as revisions before abc3cf5 used it, on the ``limits`` library it is built on.

Those revisions made ``Limiter(get_remote_address, app=app, default_limits=[],
strategy="fixed-window")`` and read ``.enabled`` and ``.limiter`` (a fixed-window strategy over
``RATELIMIT_STORAGE_URI``); they decorated no route, so Flask-Limiter's request hook checked
nothing, and this stand-in has none.
"""

from __future__ import annotations

from limits.storage import storage_from_string
from limits.strategies import FixedWindowRateLimiter


class Limiter:
    def __init__(self, key_func, *, app=None, default_limits=(), strategy="fixed-window"):
        if strategy != "fixed-window" or list(default_limits):
            raise NotImplementedError("the stand-in knows only what the old revisions asked")
        self.key_func, self.enabled, self.limiter = key_func, True, None
        if app is not None:
            self.init_app(app)

    def init_app(self, app) -> None:
        self.enabled = bool(app.config.setdefault("RATELIMIT_ENABLED", True))
        if self.enabled:
            uri = app.config.get("RATELIMIT_STORAGE_URI") or "memory://"
            options = app.config.get("RATELIMIT_STORAGE_OPTIONS") or {}
            self.limiter = FixedWindowRateLimiter(storage_from_string(uri, **options))
