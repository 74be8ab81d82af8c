"""Token -> user is remembered for TOKEN_CACHE_SECONDS per process, never longer."""

import sqlalchemy as sa

from app.auth import token_cache
from app.extensions import db
from app.models import User
from tests.api.conftest import make_worker


def selects(app, action) -> int:
    count = []

    def listen(_conn, _cursor, statement, *_):
        count.append(statement.lstrip().upper().startswith("SELECT"))

    with app.app_context():
        engine = db.engine
    sa.event.listen(engine, "before_cursor_execute", listen)
    try:
        action()
    finally:
        sa.event.remove(engine, "before_cursor_execute", listen)
    return sum(count)


def me(client, worker):
    return client.get("/api/v1/me", headers=worker.headers)


def deactivate(app, name):
    with app.app_context():
        db.session.execute(sa.update(User).where(User.username == name).values(active=False))
        db.session.commit()


def test_a_known_token_is_not_looked_up_again_until_it_expires(app, client, monkeypatch):
    worker = make_worker(app, client)
    clock = [1000.0]
    monkeypatch.setattr(token_cache.time, "monotonic", lambda: clock[0])
    assert selects(app, lambda: me(client, worker)) == 2  # the token, then its user
    assert selects(app, lambda: me(client, worker)) == 0
    assert me(client, worker).get_json() == {"username": "wes", "role": "worker"}

    deactivate(app, "wes")
    clock[0] += 9  # within TOKEN_CACHE_SECONDS (10): the documented delay
    assert me(client, worker).status_code == 200
    clock[0] += 2
    assert me(client, worker).status_code == 401


def test_no_cache_when_turned_off(app, client):
    app.config["TOKEN_CACHE_SECONDS"] = 0
    worker = make_worker(app, client)
    assert me(client, worker).status_code == 200
    deactivate(app, "wes")
    assert me(client, worker).status_code == 401


def test_a_wrong_token_is_never_remembered(app, client):
    worker = make_worker(app, client)
    worker.headers = {"Authorization": "Bearer mf_not-a-token"}
    for _ in range(2):
        assert me(client, worker).status_code == 401
    with app.app_context():
        assert app.extensions.get("mindfirl_tokens", {}) == {}
