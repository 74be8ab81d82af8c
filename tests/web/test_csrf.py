"""CSRF is enforced on browser POSTs; only bearer-token requests are exempt."""

import re
from pathlib import Path

import pytest

from app import create_app
from app.extensions import db
from app.models import User
from tests.factories import PASSWORD, make_token, make_user


@pytest.fixture
def csrf_app(database_config):
    app = create_app({"TESTING": True, "SECRET_KEY": "t", "AUTO_UPGRADE": False, **database_config})
    with app.app_context():
        db.create_all()
        make_user("wes", "worker")
    yield app
    with app.app_context():
        db.session.remove()
        for engine in db.engines.values():
            engine.dispose()


def test_login_post_without_token_is_refused(csrf_app):
    response = csrf_app.test_client().post("/login", data={"username": "wes", "password": PASSWORD})
    assert response.status_code == 400
    assert b"CSRF" in response.data


def test_login_post_with_token_works(csrf_app):
    client = csrf_app.test_client()
    token = re.search(
        rb'name="csrf_token" type="hidden" value="([^"]+)"', client.get("/login").data
    )
    response = client.post(
        "/login",
        data={"username": "wes", "password": PASSWORD, "csrf_token": token.group(1).decode()},
    )
    assert response.status_code == 302


def test_bearer_token_post_is_exempt_but_session_is_not(csrf_app):
    client = csrf_app.test_client()
    with csrf_app.app_context():
        token = make_token(db.session.query(User).filter_by(username="wes").one())
    # A POST with a token passes the CSRF check (and then 404s: no such route).
    response = client.post("/api/v1/me", headers={"Authorization": f"Bearer {token}"})
    assert response.status_code == 405
    # A bogus bearer token never falls back to anything.
    response = client.post("/api/v1/me", headers={"Authorization": "Bearer mf_bogus"})
    assert response.status_code == 401


def _form_token(client, path: str) -> str:
    found = re.search(
        rb'name="csrf_token" (?:type="hidden" )?value="([^"]+)"', client.get(path).data
    )
    return found.group(1).decode()


def test_the_csrf_token_is_rotated_at_login(csrf_app):
    """A token planted or seen before the login (login CSRF, a shared machine) is refused."""
    client = csrf_app.test_client()
    before = _form_token(client, "/login")
    response = client.post(
        "/login", data={"username": "wes", "password": PASSWORD, "csrf_token": before}
    )
    assert response.status_code == 302
    after = _form_token(client, "/account")
    assert after != before
    assert client.post("/logout", data={"csrf_token": before}).status_code == 400
    assert client.post("/logout", data={"csrf_token": after}).status_code == 302
    assert _form_token(client, "/login") != after  # and again at logout


def test_the_session_cookie_is_secure_in_the_production_configuration(database_config):
    """config.py (what the README's gunicorn command loads) sends the cookie over HTTPS only;
    ``make run`` alone turns it off for plain HTTP on 127.0.0.1."""
    app = create_app({"TESTING": True, "SECRET_KEY": "t", "AUTO_UPGRADE": False, **database_config})
    assert app.config["SESSION_COOKIE_SECURE"] and app.config["REMEMBER_COOKIE_SECURE"]
    with app.app_context():
        db.create_all()
        make_user("wes", "worker")
    client = app.test_client()
    token = _form_token(client, "/login")
    response = client.post(
        "/login", data={"username": "wes", "password": PASSWORD, "csrf_token": token}
    )
    assert "; Secure" in response.headers["Set-Cookie"]
    makefile = (Path(__file__).parents[2] / "Makefile").read_text()
    assert "FLASK_SESSION_COOKIE_SECURE=false $(FLASK) run" in makefile
    with app.app_context():
        db.session.remove()
        for engine in db.engines.values():
            engine.dispose()
