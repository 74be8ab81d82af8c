import pytest

from app.extensions import db
from app.models import User
from tests.factories import PASSWORD, make_token, make_user


@pytest.fixture
def users(app):
    with app.app_context():
        for name, role in [("ada", "admin"), ("max", "manager"), ("wes", "worker")]:
            make_user(name, role)


def login(client, username, password=PASSWORD, **kwargs):
    return client.post("/login", data={"username": username, "password": password}, **kwargs)


@pytest.mark.parametrize(
    ("username", "home", "heading"),
    [
        ("ada", "/admin/", b"Administration"),
        ("max", "/projects/", b"Linkage projects"),
        ("wes", "/review/", b"My assignments"),
    ],
)
def test_each_role_lands_on_its_home(client, users, username, home, heading):
    response = login(client, username, follow_redirects=True)
    assert response.status_code == 200
    assert response.request.path == home
    assert heading in response.data


def test_wrong_password_shows_a_clear_message(client, users):
    response = login(client, "wes", "not the password")
    assert response.status_code == 401
    assert b"Wrong username or password." in response.data


def test_unknown_user_gets_the_same_message(client, users):
    assert b"Wrong username or password." in login(client, "nobody").data


def test_failures_are_counted_but_do_not_lock_the_account(client, users, app):
    for _ in range(5):
        login(client, "wes", "wrong")
    with app.app_context():
        assert db.session.query(User).filter_by(username="wes").one().failed_logins == 5
    assert login(client, "wes").status_code == 302  # the right password still works
    with app.app_context():
        assert db.session.query(User).filter_by(username="wes").one().failed_logins == 0


@pytest.mark.parametrize(
    ("username", "path"),
    [("wes", "/projects/"), ("wes", "/admin/"), ("max", "/admin/"), ("ada", "/review/")],
)
def test_wrong_role_gets_403_not_500(client, users, username, path):
    login(client, username)
    assert client.get(path).status_code == 403


def test_anonymous_pages_redirect_to_login(client, users):
    response = client.get("/projects/")
    assert response.status_code == 302
    assert "/login" in response.headers["Location"]


def test_next_parameter_only_follows_local_paths(client, users):
    response = client.post(
        "/login?next=https://evil.example/x", data={"username": "wes", "password": PASSWORD}
    )
    assert response.headers["Location"] == "/"


def test_logout(client, users):
    login(client, "wes")
    client.post("/logout")
    assert client.get("/review/").status_code == 302


def test_api_token_authenticates(client, users, app):
    with app.app_context():
        token = make_token(db.session.query(User).filter_by(username="wes").one())
    response = client.get("/api/v1/me", headers={"Authorization": f"Bearer {token}"})
    assert response.status_code == 200
    assert response.get_json() == {"username": "wes", "role": "worker"}


def test_bad_token_is_401_json(client, users):
    response = client.get("/api/v1/me", headers={"Authorization": "Bearer mf_nope"})
    assert response.status_code == 401
    assert response.get_json()["error"] == "unauthorized"


def test_a_token_speaks_for_its_user_whatever_session_comes_with_it(client, users, app):
    with app.app_context():
        token = make_token(db.session.query(User).filter_by(username="wes").one())
    login(client, "max")  # the browser's session is the manager's
    response = client.get("/api/v1/me", headers={"Authorization": f"Bearer {token}"})
    assert response.get_json() == {"username": "wes", "role": "worker"}
    # a bad token is refused even beside a good session: never a fall-back to the cookie
    response = client.get("/api/v1/me", headers={"Authorization": "Bearer mf_nope"})
    assert response.status_code == 401
    assert client.get("/api/v1/me").get_json() == {"username": "max", "role": "manager"}


def test_api_without_credentials_is_401_json(client, users):
    response = client.get("/api/v1/me")
    assert response.status_code == 401
    assert response.is_json


def test_unknown_api_path_is_404_json(client, users):
    response = client.get("/api/v1/nothing-here")
    assert response.status_code == 404
    assert response.get_json()["error"] == "not_found"


def test_tokens_are_stored_hashed(app, users):
    with app.app_context():
        user = db.session.query(User).filter_by(username="wes").one()
        token = make_token(user)
        assert all(t.token_hash != token and token not in t.token_hash for t in user.tokens)
        assert user.password_hash.startswith("scrypt:")
        assert PASSWORD not in user.password_hash


def test_an_admin_creates_a_user_whose_password_is_shown_once(client, users, app):
    login(client, "ada")
    response = client.post("/users", data={"username": "wil", "role": "worker"})
    assert response.status_code == 200
    assert response.headers["Cache-Control"] == "no-store"
    password = response.get_data(as_text=True).split('<code id="password">')[1].split("<")[0]
    with app.app_context():
        wil = db.session.scalar(db.select(User).where(User.username == "wil"))
        assert wil.role == "worker" and password not in wil.password_hash
    client.post("/logout")
    assert login(client, "wil", password).status_code == 302


@pytest.mark.parametrize(
    ("form", "message"),
    [
        ({"username": "wes", "role": "worker"}, "exists already"),
        ({"username": "wil", "role": "owner"}, "unknown role"),
        ({"username": "  ", "role": "worker"}, "1 to 80 characters"),
    ],
)
def test_a_bad_new_user_is_refused_with_the_reason(client, users, app, form, message):
    login(client, "ada")
    page = client.post("/users", data=form, follow_redirects=True)
    assert page.request.path == "/admin/" and message in page.get_data(as_text=True)
    with app.app_context():
        assert db.session.scalar(db.select(db.func.count()).select_from(User)) == 3


@pytest.mark.parametrize("username", ["max", "wes"])
def test_only_admins_create_users(client, users, username):
    login(client, username)
    assert client.post("/users", data={"username": "eve", "role": "admin"}).status_code == 403
