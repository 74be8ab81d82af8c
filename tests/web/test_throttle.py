"""Login and token throttling: per address, per account, no lock-out, one message (issue 13)."""

from __future__ import annotations

import socket
import uuid

import pytest
import sqlalchemy as sa

from app import create_app
from app.auth import services, throttle
from app.extensions import db
from app.models import User
from tests.factories import PASSWORD, make_assignment, make_token, make_user, paper_project


@pytest.fixture
def app_overrides():
    return {
        "LOGIN_LIMIT_PER_ADDRESS": "6 per minute",
        "LOGIN_LIMIT_PER_ACCOUNT": "3 per minute",
        "TOKEN_FAILURE_LIMIT_PER_ADDRESS": "4 per minute",
        "REQUEST_LIMIT_PER_ACCOUNT": "5 per minute",
    }


@pytest.fixture
def users(app):
    with app.app_context():
        make_user("wes", "worker")
        make_user("mia", "manager")


def login(client, username, password=PASSWORD, address="10.0.0.1"):
    return client.post(
        "/login",
        data={"username": username, "password": password},
        environ_base={"REMOTE_ADDR": address},
    )


def test_every_attempt_counts_against_the_address(client, users):
    for n in range(6):
        assert login(client, f"nobody{n}", "wrong").status_code == 401
    response = login(client, "wes")  # even the right password waits now
    assert response.status_code == 429 and b"Too many login attempts" in response.data
    assert login(client, "wes", address="10.0.0.2").status_code == 302


def test_strangers_cannot_lock_the_owner_out(client, users):
    for address in ("10.0.0.7", "10.0.0.8", "10.0.0.9"):
        assert login(client, "wes", "wrong", address=address).status_code == 401
    # the account's failure limit is reached: addresses that failed on it wait ...
    assert login(client, "wes", address="10.0.0.7").status_code == 429
    # ... but the owner, from an address without a failure, logs in
    assert login(client, "wes", address="10.0.0.1").status_code == 302


def test_a_guesser_gets_one_try_per_address_once_the_account_limit_is_reached(client, users):
    for _ in range(3):
        login(client, "wes", "wrong", address="10.0.0.7")
    assert login(client, "wes", "wrong", address="10.0.0.3").status_code == 401
    assert login(client, "wes", "wrong", address="10.0.0.3").status_code == 429


def test_unknown_names_are_throttled_like_real_ones(client, users):
    for _ in range(3):
        login(client, "ghost", "wrong", address="10.0.0.7")
    assert login(client, "ghost", "wrong", address="10.0.0.7").status_code == 429
    for _ in range(3):
        login(client, "wes", "wrong", address="10.0.0.8")
    assert login(client, "wes", "wrong", address="10.0.0.8").status_code == 429


@pytest.mark.parametrize("name", ["wes", "nobody", "x" * 80])
def test_wrong_user_and_wrong_password_take_one_path(client, users, monkeypatch, name):
    checks = []
    real = services.check_password_hash
    monkeypatch.setattr(
        services, "check_password_hash", lambda h, p: checks.append(h) or real(h, p)
    )
    monkeypatch.setattr(User, "check_password", lambda self, p: checks.append(1) or False)
    response = login(client, name, "wrong")
    assert response.status_code == 401 and b"Wrong username or password." in response.data
    assert len(checks) == 1  # one scrypt check, real or dummy


def test_failures_are_counted_with_one_atomic_update(app, client, users):
    statements = []
    with app.app_context():
        engine = db.engines[None]

    def record(conn, cursor, statement, *args):
        statements.append(statement)

    sa.event.listen(engine, "before_cursor_execute", record)
    try:
        login(client, "wes", "wrong")
    finally:
        sa.event.remove(engine, "before_cursor_execute", record)
    updates = [s for s in statements if s.lstrip().upper().startswith("UPDATE USERS")]
    assert len(updates) == 1 and "failed_logins + " in updates[0].replace("users.", "")


def _token(app, username="wes"):
    with app.app_context():
        return make_token(db.session.scalar(sa.select(User).filter_by(username=username)))


def test_failed_tokens_are_throttled_per_address_but_never_lock_out_valid_ones(client, users, app):
    """A scanner behind a NAT is refused; the valid token users at its address are not."""
    bogus = {"Authorization": "Bearer nope"}
    assert [client.get("/api/v1/me", headers=bogus).status_code for _ in range(5)] == [401] * 4 + [
        429
    ]
    good = {"Authorization": f"Bearer {_token(app)}"}
    assert client.get("/api/v1/me", headers=good).status_code == 200
    assert client.get("/api/v1/me", headers=bogus).status_code == 429  # still refused
    assert client.get("/api/v1/me", headers=good).status_code == 200
    other = {"REMOTE_ADDR": "10.9.9.9"}
    assert client.get("/api/v1/me", headers=bogus, environ_base=other).status_code == 401


def test_token_use_is_limited_per_account(client, users, app):
    headers = {"Authorization": f"Bearer {_token(app)}"}
    codes = [
        client.get(
            "/api/v1/me", headers=headers, environ_base={"REMOTE_ADDR": f"10.1.0.{n}"}
        ).status_code
        for n in range(6)
    ]
    assert codes == [200] * 5 + [429]


def test_browser_sessions_are_limited_per_account_like_tokens(app, users):
    browser = app.test_client()
    assert login(browser, "wes").status_code == 302  # the login itself is not signed in yet
    codes = [browser.get("/review/").status_code for _ in range(6)]
    assert codes == [200] * 5 + [429]
    # another account is not slowed down by wes
    other = app.test_client()
    login(other, "mia")
    assert other.get("/projects/").status_code == 200


def test_sessions_and_tokens_of_one_account_share_one_count(app, users):
    browser = app.test_client()
    login(browser, "wes")
    headers = {"Authorization": f"Bearer {_token(app)}"}
    script = app.test_client()
    codes = [browser.get("/review/").status_code for _ in range(3)]
    codes += [script.get("/api/v1/me", headers=headers).status_code for _ in range(3)]
    assert codes == [200] * 5 + [429]
    assert browser.get("/review/").status_code == 429


def _redis_up() -> bool:
    try:
        socket.create_connection(("127.0.0.1", 6379), timeout=0.5).close()
        return True
    except OSError:
        return False


@pytest.mark.skipif(not _redis_up(), reason="no Redis on 127.0.0.1:6379")
def test_processes_share_counts_through_redis(database_config):
    """Two apps (as two gunicorn workers would be) see one count in a shared store."""
    config = {
        "TESTING": True,
        "SECRET_KEY": "t",
        "WTF_CSRF_ENABLED": False,
        "AUTO_UPGRADE": False,
        "RATELIMIT_STORAGE_URI": "redis://127.0.0.1:6379",
        "RATELIMIT_KEY_PREFIX": f"test-{uuid.uuid4().hex}",
        "LOGIN_LIMIT_PER_ADDRESS": "4 per minute",
        **database_config,
    }
    first, second = create_app(config), create_app(config)
    with first.app_context():
        db.create_all()
    try:
        for n in range(4):
            app = first if n % 2 else second
            assert login(app.test_client(), "nobody", "wrong").status_code == 401
        assert login(first.test_client(), "nobody", "wrong").status_code == 429
        assert login(second.test_client(), "nobody", "wrong").status_code == 429
    finally:
        for app in (first, second):
            with app.app_context():
                db.session.remove()
                for engine in db.engines.values():
                    engine.dispose()


def test_a_session_cookie_stops_working_after_logout(client, users):
    assert login(client, "wes").status_code == 302
    cookie = client.get_cookie("session").value
    assert client.get("/review/").status_code == 200
    client.post("/logout")
    client.set_cookie("session", cookie)  # a copy of the cookie from before the logout
    response = client.get("/review/")
    assert response.status_code == 302 and "/login" in response.headers["Location"]


def _first_cells(client, headers, assignment_id, n=2):
    page = client.get(f"/api/v1/assignments/{assignment_id}", headers=headers).get_json()
    cells = [
        {"pair_id": pair["id"], "row": row["row"], "attribute": name}
        for pair in page["pairs"]
        for row in pair["rows"]
        for name, cell in row["cells"].items()
        if cell["next_level"]
    ]
    return cells[:n]


@pytest.mark.parametrize("app_overrides", [{"REVEALS_IN_FLIGHT_PER_ACCOUNT": 1}])
def test_one_accounts_reveals_in_flight_are_bounded_not_the_others(app, client, users):
    """A burst of one worker's reveals cannot hold the server while others wait."""
    with app.app_context():
        mia = db.session.scalar(sa.select(User).filter_by(username="mia"))
        wes = db.session.scalar(sa.select(User).filter_by(username="wes"))
        wen = make_user("wen", "worker")
        project = paper_project(mia)
        mine, theirs = make_assignment(project, wes), make_assignment(project, wen)
        ids = (wes.id, mine.id, theirs.id)
        headers = (
            {"Authorization": f"Bearer {make_token(wes)}"},
            {"Authorization": f"Bearer {make_token(wen)}"},
        )
    wes_id, mine, theirs = ids
    (first, second), (other,) = (
        _first_cells(client, headers[0], mine),
        _first_cells(client, headers[1], theirs, 1),
    )
    with app.app_context(), throttle.reveal_in_flight(wes_id):  # one of wes's in progress
        busy = client.post(f"/api/v1/assignments/{mine}/reveal", json=first, headers=headers[0])
        assert busy.status_code == 429 and "one at a time" in busy.get_json()["message"]
        other_worker = client.post(
            f"/api/v1/assignments/{theirs}/reveal", json=other, headers=headers[1]
        )
        assert other_worker.status_code == 200
    done = client.post(f"/api/v1/assignments/{mine}/reveal", json=first, headers=headers[0])
    assert done.status_code == 200
    again = client.post(f"/api/v1/assignments/{mine}/reveal", json=second, headers=headers[0])
    assert again.status_code == 200  # the turn was given back
