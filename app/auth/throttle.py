"""Login and token throttling with ``limits``: per address, per account, no lock-out.

- Every login attempt counts against its client address (``LOGIN_LIMIT_PER_ADDRESS``).
- Failed logins also count against the account name tried (``LOGIN_LIMIT_PER_ACCOUNT``),
  whether or not the account exists, so being throttled tells nothing about which names
  exist. Past that limit the account is not locked: an address that has not failed on this
  account in the window still gets its password checked, so a stranger cannot lock the
  owner out; addresses that did fail on it are refused until the window passes. A guesser
  spread over many addresses gets one try per address per window once the account limit is
  reached.
- Every request of a signed-in account counts against the account
  (``REQUEST_LIMIT_PER_ACCOUNT``), whether it comes with a browser session or a bearer token:
  one count per account, so a browser cannot reveal faster than a script.
- Reveals in progress at once, per account and process (``REVEALS_IN_FLIGHT_PER_ACCOUNT``,
  0: no bound): one more is refused at once with 429. An account's reveals are charged one
  after the other anyway (its budget is one row), so a script firing 32 at once gains
  nothing by it, but it held every thread and the write lock's queue, and other workers'
  reveals waited behind it (issue 28). The review page sends one reveal at a time.
- Failed bearer tokens count against the address (``TOKEN_FAILURE_LIMIT_PER_ADDRESS``), and
  past the limit only the *failing* requests are refused (429 instead of 401): a valid token
  is always checked and served, so one scanner behind a NAT or a proxy cannot lock out the
  other users of its address. Tokens are 32 random bytes, so the answer a scanner sees
  (200 or 429) gives it nothing to guess with; the limit keeps its requests cheap and visible.

Counts live in ``RATELIMIT_STORAGE_URI`` (with ``RATELIMIT_STORAGE_OPTIONS``): ``memory://``
counts per process; with several processes (gunicorn) use a shared store such as
``redis://127.0.0.1:6379``. ``RATELIMIT_ENABLED = False`` turns every count off. Behind a
proxy the client address is ``request.remote_addr``: put
``werkzeug.middleware.proxy_fix.ProxyFix`` in front, or every client shares the proxy's
address.

The counting is the ``limits`` library's fixed-window strategy over its storage, the one
Flask-Limiter is built on, used directly: the app counts in its own functions and never
decorates a route, so Flask-Limiter's per-request hook had nothing to do, and its ``flask
limiter`` command made every ``flask`` command import it (and ``rich``) before starting.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager

from flask import Flask, abort, current_app, request
from limits import RateLimitItem, parse_many
from limits.storage import storage_from_string
from limits.strategies import FixedWindowRateLimiter

DEFAULTS = {
    "RATELIMIT_ENABLED": True,
    "RATELIMIT_STORAGE_URI": "memory://",
    "LOGIN_LIMIT_PER_ADDRESS": "10 per minute; 100 per hour",
    "LOGIN_LIMIT_PER_ACCOUNT": "20 per minute; 200 per hour",
    "TOKEN_FAILURE_LIMIT_PER_ADDRESS": "30 per minute",
    "REQUEST_LIMIT_PER_ACCOUNT": "6000 per minute",
    "REVEALS_IN_FLIGHT_PER_ACCOUNT": 2,
}


def init_throttle(app: Flask) -> None:
    """Give ``app`` its own counts (so apps in one process never share them)."""
    for key, value in DEFAULTS.items():
        app.config.setdefault(key, value)
    app.extensions["mindfirl_in_flight"] = (threading.Lock(), {})
    limiter = None
    if app.config["RATELIMIT_ENABLED"]:
        options = app.config.get("RATELIMIT_STORAGE_OPTIONS") or {}
        storage = storage_from_string(app.config["RATELIMIT_STORAGE_URI"], **options)
        limiter = FixedWindowRateLimiter(storage)
    app.extensions["mindfirl_limiter"] = limiter


def _limiter() -> FixedWindowRateLimiter:
    return current_app.extensions["mindfirl_limiter"]


def _items(setting: str) -> list[RateLimitItem]:
    return parse_many(current_app.config[setting])


def _enabled() -> bool:
    return _limiter() is not None


def get_remote_address() -> str:
    """The client's address (``request.remote_addr``; 127.0.0.1 outside a request)."""
    return request.remote_addr or "127.0.0.1"


def _keys(setting: str, keys: tuple[str, ...]) -> tuple[str, ...]:
    # RATELIMIT_KEY_PREFIX separates apps (or test runs) sharing one store
    return (current_app.config.get("RATELIMIT_KEY_PREFIX") or "mindfirl", setting, *keys)


def _hit(setting: str, *keys: str) -> bool:
    """Count one against every limit of ``setting``; False when one is exceeded."""
    if not _enabled():
        return True
    strategy, ids = _limiter(), _keys(setting, keys)
    return all([strategy.hit(item, *ids) for item in _items(setting)])


def _exhausted(setting: str, *keys: str) -> bool:
    if not _enabled():
        return False
    strategy, ids = _limiter(), _keys(setting, keys)
    return any(not strategy.test(item, *ids) for item in _items(setting))


def _has_failed(setting: str, *keys: str) -> bool:
    if not _enabled():
        return False
    strategy, ids = _limiter(), _keys(setting, keys)
    return any(
        strategy.get_window_stats(item, *ids).remaining < item.amount for item in _items(setting)
    )


def _account(username: str) -> str:
    return username.strip().casefold()[:200]


def login_allowed(username: str) -> bool:
    """Count a login attempt; False when this address or account must wait."""
    address = get_remote_address()
    if not _hit("LOGIN_LIMIT_PER_ADDRESS", address):
        return False
    account = _account(username)
    if _exhausted("LOGIN_LIMIT_PER_ACCOUNT", account):
        # the account is under attack: only addresses without a failure on it may try
        return not _has_failed("LOGIN_LIMIT_PER_ACCOUNT", account, address)
    return True


def login_failed(username: str) -> None:
    account = _account(username)
    _hit("LOGIN_LIMIT_PER_ACCOUNT", account)
    _hit("LOGIN_LIMIT_PER_ACCOUNT", account, get_remote_address())


def token_failure_allowed() -> bool:
    """Count a failed token against this address; False once the address is past its limit."""
    return _hit("TOKEN_FAILURE_LIMIT_PER_ADDRESS", get_remote_address())


def account_request_allowed(user_id: int) -> bool:
    """Count a request of account ``user_id`` (session or token); False past its limit."""
    return _hit("REQUEST_LIMIT_PER_ACCOUNT", str(user_id))


@contextmanager
def reveal_in_flight(user_id: int) -> Iterator[None]:
    """Count a reveal of account ``user_id`` while it runs; 429 past the account's bound."""
    bound = int(current_app.config["REVEALS_IN_FLIGHT_PER_ACCOUNT"] or 0)
    lock, running = current_app.extensions["mindfirl_in_flight"]
    with lock:
        if bound and running.get(user_id, 0) >= bound:
            abort(429, f"{bound} reveal(s) of this account in progress; send one at a time")
        running[user_id] = running.get(user_id, 0) + 1
    try:
        yield
    finally:
        with lock:
            running[user_id] -= 1
            if not running[user_id]:
                del running[user_id]
