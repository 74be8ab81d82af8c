import pytest

from tests.factories import PASSWORD, make_user


@pytest.fixture
def people(app):
    with app.app_context():
        for name, role in [("ada", "admin"), ("max", "manager"), ("wes", "worker")]:
            make_user(name, role)


def log_in(page, base, username, password=PASSWORD):
    page.goto(f"{base}/login")
    page.get_by_label("Username").fill(username)
    page.get_by_label("Password").fill(password)
    page.get_by_role("button", name="Log in").click()


@pytest.mark.parametrize(
    ("username", "path", "heading"),
    [
        ("ada", "/admin/", "Administration"),
        ("max", "/projects/", "Linkage projects"),
        ("wes", "/review/", "My assignments"),
    ],
)
def test_each_role_logs_in_to_its_home(page, live_server, people, username, path, heading):
    log_in(page, live_server, username)
    page.wait_for_url(f"{live_server}{path}")
    assert page.get_by_role("heading", level=1).inner_text() == heading
    page.get_by_role("button", name="Log out").click()
    page.wait_for_url(f"{live_server}/login")


def test_wrong_password_shows_a_clear_message(page, live_server, people):
    log_in(page, live_server, "wes", "wrong password")
    assert page.get_by_role("alert").inner_text() == "Wrong username or password."
    assert page.url == f"{live_server}/login"
