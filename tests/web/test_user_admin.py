"""Admins administer accounts in the browser; every change is audited and takes effect at once."""

from __future__ import annotations

import pytest
from sqlalchemy import select

from app.extensions import db
from app.models import AccountEvent, ApiToken, User
from tests.factories import PASSWORD, make_token, make_user


@pytest.fixture
def team(app):
    with app.app_context():
        ids = {
            n: make_user(n, r).id
            for n, r in [("ada", "admin"), ("max", "manager"), ("wes", "worker")]
        }
        wes = db.session.get(User, ids["wes"])
        ids["token"] = make_token(wes)
        return ids


def login(client, username, password=PASSWORD):
    return client.post("/login", data={"username": username, "password": password})


def bearer(token):
    return {"Authorization": f"Bearer {token}"}


def events(app, username=None):
    with app.app_context():
        query = select(AccountEvent).order_by(AccountEvent.id)
        rows = db.session.scalars(query).all()
        return [
            (e.user.username, e.action, e.detail, e.actor.username if e.actor else None, e.via)
            for e in rows
            if username is None or e.user.username == username
        ]


def test_deactivation_stops_sessions_and_tokens_at_once(app, team):
    admin, worker = app.test_client(), app.test_client()
    login(admin, "ada"), login(worker, "wes")
    assert worker.get("/review/").status_code == 200
    assert worker.get("/api/v1/me", headers=bearer(team["token"])).status_code == 200  # cached now

    answer = admin.post(f"/users/{team['wes']}/deactivate", data={"back": "list"})
    assert answer.status_code == 302 and answer.location.endswith(f"/admin/#user-{team['wes']}")
    assert worker.get("/review/").status_code == 302  # to the login page: the session ended
    assert worker.get("/api/v1/me", headers=bearer(team["token"])).status_code == 401
    assert login(app.test_client(), "wes").status_code == 401

    admin.post(f"/users/{team['wes']}/activate")
    assert worker.get("/api/v1/me", headers=bearer(team["token"])).status_code == 200
    assert login(app.test_client(), "wes").status_code == 302
    assert events(app, "wes")[-2:] == [
        ("wes", "deactivated", None, "ada", "web"),
        ("wes", "activated", None, "ada", "web"),
    ]


def test_role_change_applies_on_the_next_request_and_is_audited(app, team):
    admin, max_ = app.test_client(), app.test_client()
    login(admin, "ada"), login(max_, "max")
    assert max_.get("/projects/").status_code == 200
    admin.post(f"/users/{team['max']}/role", data={"role": "worker"})
    assert max_.get("/projects/").status_code == 403
    assert max_.get("/review/").status_code == 200
    assert events(app, "max")[-1] == ("max", "role_changed", "manager -> worker", "ada", "web")
    page = admin.get("/admin/").get_data(as_text=True)
    assert "role changed" in page and "manager -&gt; worker" in page


@pytest.mark.parametrize("action", ["deactivate", "role", "reset-password"])
def test_an_admin_cannot_lock_themself_out(app, team, action):
    admin = app.test_client()
    login(admin, "ada")
    page = admin.post(
        f"/users/{team['ada']}/{action}", data={"role": "worker"}, follow_redirects=True
    ).get_data(as_text=True)
    assert "Not done" in page
    with app.app_context():
        ada = db.session.get(User, team["ada"])
        assert ada.active and ada.role == "admin" and not ada.must_change_password


def test_the_last_admin_stays_an_admin(app, team, runner):
    result = runner.invoke(args=["users", "deactivate", "ada"])
    assert result.exit_code != 0 and "last active admin" in result.output
    result = runner.invoke(args=["users", "role", "ada", "manager"])
    assert result.exit_code != 0 and "last active admin" in result.output


def test_password_reset_gives_a_one_time_password_that_only_changes_the_password(app, team):
    admin, worker = app.test_client(), app.test_client()
    login(admin, "ada"), login(worker, "wes")
    answer = admin.post(f"/users/{team['wes']}/reset-password")
    assert answer.headers["Cache-Control"] == "no-store"
    page = answer.get_data(as_text=True)
    one_time = page.split('<code id="password">')[1].split("</code>")[0]
    assert worker.get("/review/").status_code == 302  # the open session ended
    assert login(app.test_client(), "wes").status_code == 401  # the old password is gone

    fresh = app.test_client()
    assert login(fresh, "wes", one_time).status_code == 302
    for path in ("/review/", "/", "/review/assignments/1"):
        answer = fresh.get(path)
        assert answer.status_code == 302 and answer.location.endswith("/account")
    assert fresh.get("/api/v1/me").status_code == 403  # the browser's API calls wait too
    assert (
        fresh.get("/api/v1/me", headers=bearer(team["token"])).status_code == 200
    )  # tokens do not
    assert "An administrator reset your password" in fresh.get("/account").get_data(as_text=True)

    refused = fresh.post(
        "/account/password", data={"current": one_time, "new": one_time, "repeat": one_time}
    )
    assert refused.status_code == 400 and "must differ" in refused.get_data(as_text=True)
    mismatch = fresh.post(
        "/account/password", data={"current": one_time, "new": "a new secret", "repeat": "other!!"}
    )
    assert mismatch.status_code == 400
    done = fresh.post(
        "/account/password",
        data={"current": one_time, "new": "a new secret", "repeat": "a new secret"},
    )
    assert done.status_code == 302
    assert fresh.get("/review/").status_code == 200  # this session goes on
    assert login(app.test_client(), "wes", "a new secret").status_code == 302
    assert [e[1:] for e in events(app, "wes")[-2:]] == [
        ("password_reset", None, "ada", "web"),
        ("password_changed", None, "wes", "web"),
    ]
    with app.app_context():  # no secret in the audit
        for row in db.session.scalars(select(AccountEvent)):
            for value in (row.action, row.detail or "", row.via):
                assert one_time not in value and "a new secret" not in value
        assert not db.session.get(User, team["wes"]).must_change_password


def test_tokens_listed_and_revoked_by_the_admin(app, team):
    with app.app_context():
        from app.auth.services import issue_token

        second = issue_token(db.session.get(User, team["wes"]), "nightly export")
        db.session.commit()
        second_id = db.session.scalars(select(ApiToken.id).order_by(ApiToken.id)).all()[-1]
    admin = app.test_client()
    login(admin, "ada")
    page = admin.get(f"/users/{team['wes']}").get_data(as_text=True)
    assert "nightly export" in page and "#1" in page and second not in page
    assert app.test_client().get("/api/v1/me", headers=bearer(second)).status_code == 200
    admin.post(f"/users/{team['wes']}/tokens/{second_id}/revoke")
    assert app.test_client().get("/api/v1/me", headers=bearer(second)).status_code == 401
    assert app.test_client().get("/api/v1/me", headers=bearer(team["token"])).status_code == 200
    assert events(app, "wes")[-1] == ("wes", "token_revoked", f"token {second_id}", "ada", "web")
    # A token id of another user is not found through this user's page.
    page = admin.post(f"/users/{team['max']}/tokens/1/revoke", follow_redirects=True)
    assert "has no token 1" in page.get_data(as_text=True)


def test_a_user_lists_and_revokes_only_their_own_tokens(app, team):
    with app.app_context():
        max_token = make_token(db.session.get(User, team["max"]))
    worker = app.test_client()
    login(worker, "wes")
    page = worker.get("/account").get_data(as_text=True)
    assert 'id="token-1"' in page and 'id="token-2"' not in page
    refused = worker.post("/account/tokens/2/revoke", follow_redirects=True)
    assert "has no token 2" in refused.get_data(as_text=True)
    assert app.test_client().get("/api/v1/me", headers=bearer(max_token)).status_code == 200
    worker.post("/account/tokens/1/revoke")
    assert app.test_client().get("/api/v1/me", headers=bearer(team["token"])).status_code == 401
    assert events(app, "wes")[-1] == ("wes", "token_revoked", "token 1", "wes", "web")


@pytest.mark.parametrize("who", ["max", "wes"])
def test_only_admins_administer(app, team, who):
    client = app.test_client()
    login(client, who)
    for path in (f"/users/{team['ada']}/deactivate", f"/users/{team['ada']}/reset-password"):
        assert client.post(path).status_code == 403
    assert client.get(f"/users/{team['ada']}").status_code == 403


def test_creating_a_user_in_the_browser_is_audited(app, team):
    admin = app.test_client()
    login(admin, "ada")
    admin.post("/users", data={"username": "wil", "role": "worker"})
    assert events(app, "wil") == [("wil", "created", "as worker", "ada", "web")]
