"""``flask users`` administers accounts like the Administration page, audited ``via cli``."""

from __future__ import annotations

import sqlalchemy as sa

from app.extensions import db
from app.models import AccountEvent, Project, User
from tests.factories import PASSWORD, make_user


def invoke(runner, *args):
    result = runner.invoke(args=["users", *args])
    return result.exit_code, result.output


def audit(app, username):
    with app.app_context():
        rows = db.session.scalars(sa.select(AccountEvent).order_by(AccountEvent.id)).all()
        return [
            (e.action, e.detail, e.actor_id, e.via) for e in rows if e.user.username == username
        ]


def test_list_deactivate_activate_role(app, runner, client):
    with app.app_context():
        make_user("ada", "admin"), make_user("wes", "worker")
    code, out = invoke(runner, "list")
    assert code == 0 and "wes" in out and "active" in out
    assert invoke(runner, "deactivate", "wes") == (0, "wes deactivated\n")
    assert "deactivated" in invoke(runner, "list")[1]
    code, out = invoke(runner, "deactivate", "wes")
    assert code != 0 and "deactivated already" in out
    assert client.post("/login", data={"username": "wes", "password": PASSWORD}).status_code == 401
    assert invoke(runner, "activate", "wes")[0] == 0
    assert invoke(runner, "role", "wes", "manager") == (0, "wes is now manager\n")
    code, out = invoke(runner, "role", "wes", "owner")
    assert code != 0 and "owner" in out
    code, out = invoke(runner, "deactivate", "ghost")
    assert code != 0 and "no user 'ghost'" in out
    assert audit(app, "wes") == [
        ("created", "as worker", None, "cli"),
        ("deactivated", None, None, "cli"),
        ("activated", None, None, "cli"),
        ("role_changed", "worker -> manager", None, "cli"),
    ]


def test_reset_password_prints_a_one_time_password(app, runner, client):
    with app.app_context():
        make_user("wes", "worker")
    code, out = invoke(runner, "reset-password", "wes")
    assert code == 0
    one_time = out.split(": ", 1)[1].split("\n", 1)[0]
    login = client.post("/login", data={"username": "wes", "password": one_time})
    assert login.status_code == 302
    assert client.get("/review/").location.endswith("/account")
    assert "wes" in invoke(runner, "list")[1] and "*" in invoke(runner, "list")[1]
    assert audit(app, "wes")[-1] == ("password_reset", None, None, "cli")


def test_tokens_listed_labelled_and_revoked(app, runner, client):
    with app.app_context():
        make_user("wes", "worker")
    first = invoke(runner, "token", "wes", "--label", "ci")[1].strip()
    second = invoke(runner, "token", "wes")[1].strip()
    code, out = invoke(runner, "tokens", "wes")
    assert code == 0 and "ci" in out and "never" in out
    assert first not in out and second not in out  # never the token itself
    headers = {"Authorization": f"Bearer {first}"}
    assert client.get("/api/v1/me", headers=headers).status_code == 200
    assert invoke(runner, "revoke-token", "wes", "1")[0] == 0
    assert client.get("/api/v1/me", headers=headers).status_code == 401
    code, out = invoke(runner, "revoke-token", "wes", "1")
    assert code != 0 and "no token 1" in out
    code, out = invoke(runner, "revoke-token", "wes")
    assert code != 0 and "TOKEN_ID or --all" in out
    assert invoke(runner, "revoke-token", "wes", "--all") == (0, "revoked 1 token(s) of wes: 2\n")
    assert (
        client.get("/api/v1/me", headers={"Authorization": f"Bearer {second}"}).status_code == 401
    )
    assert "no API tokens" in invoke(runner, "tokens", "wes")[1]
    assert [a[:2] for a in audit(app, "wes")[1:]] == [
        ("token_issued", "token 1"), ("token_issued", "token 2"),
        ("token_revoked", "token 1"), ("token_revoked", "token 2"),
    ]  # fmt: skip


def test_demo_logins_are_recoverable_without_deleting_anything(app, runner, client):
    first = runner.invoke(args=["demo"])
    assert first.exit_code == 0
    old = {line.split()[1]: line.split()[2] for line in first.output.splitlines()[1:]}
    runner.invoke(args=["users", "deactivate", "worker"])
    again = runner.invoke(args=["demo", "--reset-passwords"])
    assert again.exit_code == 0, again.output
    new = {line.split()[1]: line.split()[2] for line in again.output.splitlines()[1:]}
    assert set(new) == {"admin", "manager", "worker", "worker2"}
    for name, password in new.items():
        assert password != old[name]
        client.post("/logout")
        assert (
            client.post("/login", data={"username": name, "password": password}).status_code == 302
        )
    with app.app_context():
        assert db.session.scalar(sa.select(sa.func.count()).select_from(Project)) == 2
        assert db.session.scalar(sa.select(User.active).where(User.username == "worker"))
    assert ("password_reset", "demo login", None, "cli") in audit(app, "worker")
