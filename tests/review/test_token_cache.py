"""Token -> user is remembered for TOKEN_CACHE_SECONDS per process, never longer."""

import sqlalchemy as sa

from app.auth import token_cache
from app.extensions import db
from app.models import User
from tests.api.conftest import make_worker


def statements(app, action, start: str = "SELECT") -> int:
    """How many statements beginning with ``start`` ``action()`` sends the main database."""
    count = []

    def listen(_conn, _cursor, statement, *_):
        count.append(statement.lstrip().upper().startswith(start))

    with app.app_context():
        engine = db.engine
    sa.event.listen(engine, "before_cursor_execute", listen)
    try:
        action()
    finally:
        sa.event.remove(engine, "before_cursor_execute", listen)
    return sum(count)


def selects(app, action) -> int:
    return statements(app, action)


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
    assert selects(app, lambda: me(client, worker)) == 1  # the token and its user, joined
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


def test_each_request_gets_its_own_user_in_no_session(app, client, monkeypatch):
    """A remembered token gives every request a new detached user (no query, no merge):
    one request's object never reaches another's session, and adding it to a session
    (as a relationship's cascade would) works without touching the database."""
    worker = make_worker(app, client)
    seen = []
    with app.test_request_context():
        first = token_cache.cached_user_for_token(worker.headers["Authorization"][7:])
        assert first not in db.session and sa.inspect(first).detached  # looked up apart
        assert db.session().get_transaction() is None  # nor the request's transaction begun
        for _ in range(2):
            user = token_cache.cached_user_for_token(worker.headers["Authorization"][7:])
            assert user not in db.session and sa.inspect(user).detached
            assert (user.username, user.role, user.active) == ("wes", "worker", True)
            seen.append(user)
        assert seen[0] is not seen[1]
        assert selects(app, lambda: db.session.add(seen[0])) == 0
        assert not db.session.dirty and db.session.get(User, seen[0].id) is seen[0]
