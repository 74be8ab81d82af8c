"""Account administration over JSON: what the Administration page and `flask users` do,
audited ``via`` api; a worker or a manager is refused; the last active admin stays one."""

from __future__ import annotations

from app.extensions import db
from app.models import AccountEvent, User
from tests.factories import PASSWORD, make_token, make_user


def _headers(token: str) -> dict:
    return {"Authorization": f"Bearer {token}"}


def test_an_admin_administers_accounts_through_the_api(app, client):
    with app.app_context():
        ada = make_user("ada", "admin")
        admin, worker = _headers(make_token(ada)), _headers(make_token(make_user("wes")))
        ada_id = ada.id
    made = client.post("/api/v1/users", json={"username": "nia", "role": "worker"},
                       headers=admin)  # fmt: skip
    assert made.status_code == 201 and made.headers["Cache-Control"] == "no-store"
    nia, password = made.get_json()["user"], made.get_json()["password"]
    assert (nia["username"], nia["role"], nia["active"]) == ("nia", "worker", True)
    assert client.post("/login", data={"username": "nia", "password": password}).status_code == 302
    listed = client.get("/api/v1/users", headers=admin).get_json()["users"]
    assert [u["username"] for u in listed] == ["ada", "nia", "wes"]
    assert {u["username"]: u["tokens"] for u in listed} == {"ada": 1, "nia": 0, "wes": 1}
    url = f"/api/v1/users/{nia['id']}"
    role = client.post(f"{url}/role", json={"role": "manager"}, headers=admin)
    assert role.status_code == 200 and role.get_json()["role"] == "manager"
    assert client.post(f"{url}/deactivate", headers=admin).get_json()["active"] is False
    again = client.post(f"{url}/deactivate", headers=admin)
    assert again.status_code == 400 and "deactivated already" in again.get_json()["message"]
    assert client.post(f"{url}/activate", headers=admin).get_json()["active"] is True
    reset = client.post(f"{url}/reset-password", headers=admin)
    assert reset.status_code == 200 and reset.headers["Cache-Control"] == "no-store"
    assert reset.get_json()["user"]["must_change_password"] is True
    assert reset.get_json()["password"] != password
    detail = client.get(url, headers=admin).get_json()
    actions = [e["action"] for e in detail["events"]]
    assert actions[:5] == ["password_reset", "activated", "deactivated", "role_changed", "created"]
    assert {e["via"] for e in detail["events"]} == {"api"}
    assert all(e["by"] == "ada" for e in detail["events"])
    assert PASSWORD not in str(detail) and password not in str(detail)
    # The last active admin stays one; workers and managers are refused.
    last = client.post(f"/api/v1/users/{ada_id}/role", json={"role": "worker"}, headers=admin)
    assert last.status_code in (400, 409)
    assert client.get("/api/v1/users", headers=worker).status_code == 403
    assert client.post("/api/v1/users", json={"username": "x", "role": "admin"},
                       headers=worker).status_code == 403  # fmt: skip
    assert client.get("/api/v1/users/999", headers=admin).status_code == 404
    bad = client.post("/api/v1/users", json={"username": "y", "role": "king"}, headers=admin)
    assert bad.status_code == 400


def test_tokens_are_listed_and_revoked_by_their_user_or_an_admin(app, client):
    with app.app_context():
        wes = make_user("wes")
        first, second = make_token(wes), make_token(wes)
        admin = _headers(make_token(make_user("ada", "admin")))
        wes_id = wes.id
    mine = client.get("/api/v1/me/tokens", headers=_headers(first)).get_json()["tokens"]
    assert len(mine) == 2 and all("token" not in t for t in mine)
    assert mine[0]["last_used_at"] is not None  # this request used it
    gone = client.delete(f"/api/v1/me/tokens/{mine[1]['id']}", headers=_headers(first))
    assert gone.status_code == 200 and len(gone.get_json()["tokens"]) == 1
    assert client.get("/api/v1/me", headers=_headers(second)).status_code == 401
    revoked = client.delete(f"/api/v1/users/{wes_id}/tokens/{mine[0]['id']}", headers=admin)
    assert revoked.status_code == 200 and revoked.get_json()["tokens"] == []
    assert client.get("/api/v1/me", headers=_headers(first)).status_code == 401
    with app.app_context():
        events = db.session.scalars(
            db.select(AccountEvent.action).where(AccountEvent.user_id == wes_id)
        ).all()
        assert events.count("token_revoked") == 2
        assert db.session.get(User, wes_id).active
