"""An API token's "last used" follows its use (to the minute), on the account page and in
``flask users tokens``; a token used again within the minute is not written again."""

from __future__ import annotations

import datetime as dt

import sqlalchemy as sa

from app.auth.services import TOUCH_SECONDS
from app.extensions import db
from app.models import ApiToken
from app.models.base import utcnow
from tests.api.conftest import make_worker
from tests.review.test_token_cache import statements


def _used(app) -> dt.datetime | None:
    with app.app_context():
        used = db.session.scalar(sa.select(ApiToken.last_used_at))
        return used if used is None or used.tzinfo else used.replace(tzinfo=dt.UTC)


def _writes(app, action) -> int:
    return statements(app, action, "UPDATE API_TOKENS")


def test_last_used_follows_the_tokens_use(app, client, runner):
    app.config["TOKEN_CACHE_SECONDS"] = 0  # every request looks its token up
    worker = make_worker(app, client)
    assert _used(app) is None
    before = utcnow()
    assert _writes(app, lambda: client.get("/api/v1/me", headers=worker.headers)) == 1
    first = _used(app)
    assert first is not None and first >= before - dt.timedelta(seconds=1)
    # Used again at once: not written again (one write a minute at most).
    assert _writes(app, lambda: client.get("/api/v1/me", headers=worker.headers)) == 0
    with app.app_context():
        old = utcnow() - dt.timedelta(seconds=TOUCH_SECONDS + 5)
        db.session.execute(sa.update(ApiToken).values(last_used_at=old))
        db.session.commit()
    assert _writes(app, lambda: client.get("/api/v1/me", headers=worker.headers)) == 1
    assert _used(app) > first - dt.timedelta(seconds=1)
    listed = runner.invoke(args=["users", "tokens", "wes"])
    assert listed.exit_code == 0 and "never" not in listed.output
