"""A ground-truth column and a sensitive column never reach a worker: not in the grid's
HTML, not in any worker API answer (pages, reveals at full level, decisions, submits), and no
export is served to a worker. The manager's linked export keeps both (README, Exports)."""

from __future__ import annotations

import copy

import pytest

from app.demo import PAPER_EXAMPLE
from app.projects.exports import KINDS
from tests.factories import PASSWORD, make_assignment, make_token, make_user, paper_project

# Distinctive values: any of them in a worker's response is a leak.
INCOME = ["INCZQ101", "INCZQ102", "INCZQ103", "INCZQ104"]
TRUTH = ["TRUQX71", "TRUQX71", "TRUQX73", "TRUQX73"]
SECRETS = [*INCOME, *TRUTH, "INCZQ", "TRUQX"]


def spec() -> dict:
    out = copy.deepcopy(PAPER_EXAMPLE)
    out["attributes"].append({"name": "cluster_id", "type": "string", "truth": True})
    for record, income, truth in zip(out["records"], INCOME, TRUTH, strict=True):
        record["income"], record["cluster_id"] = income, truth
    return out


@pytest.fixture
def setup(app, client):
    with app.app_context():
        manager = make_user("max", "manager")
        worker = make_user("wes", "worker")
        project = paper_project(manager, **spec())
        assignment = make_assignment(project, worker, budget=1.0)
        ids = {"project": project.id, "assignment": assignment.id}
        return ids, {"Authorization": f"Bearer {make_token(worker)}"}


def assert_clean(body: bytes) -> None:
    text = body.decode("utf-8", "replace")
    assert not [s for s in SECRETS if s in text]


def test_the_truth_column_is_recorded_as_truth_and_sensitive(app, setup):
    from app.extensions import db
    from app.models import Project

    with app.app_context():
        project = db.session.get(Project, setup[0]["project"])
        flagged = {a.name: (a.identifying, a.truth) for a in project.attributes}
        assert flagged["cluster_id"] == (False, True)
        assert flagged["income"] == (False, False)


def test_worker_api_never_carries_vault_values(client, setup):
    ids, headers = setup
    base = f"/api/v1/assignments/{ids['assignment']}"
    page = client.get(base, headers=headers)
    assert page.status_code == 200
    assert_clean(page.data)
    body = page.get_json()
    assert [a["name"] for a in body["attributes"]] == ["name", "dob", "race"]
    revealed = 0
    for pair in body["pairs"]:
        for row in pair["rows"]:
            for attribute in ("name", "dob", "race"):
                for _ in range(2):  # masked -> partial -> full
                    reply = client.post(
                        f"{base}/reveal", headers=headers,
                        json={"pair_id": pair["id"], "row": row["row"], "attribute": attribute},
                    )  # fmt: skip
                    assert_clean(reply.data)
                    revealed += reply.status_code == 200
            for attribute in ("income", "cluster_id"):  # not an attribute a worker can name
                reply = client.post(
                    f"{base}/reveal", headers=headers,
                    json={"pair_id": pair["id"], "row": row["row"], "attribute": attribute},
                )  # fmt: skip
                assert reply.status_code in (400, 404)
                assert_clean(reply.data)
        saved = client.post(
            f"{base}/decisions",
            headers=headers,
            json={"pair_id": pair["id"], "decision": "same", "confidence": "high"},
        )
        assert saved.status_code == 201
        assert_clean(saved.data)
    assert revealed > 0
    assert_clean(client.get(base, headers=headers).data)  # every cell now at full level
    assert_clean(client.get(f"{base}/decisions", headers=headers).data)
    assert_clean(client.post(f"{base}/pages/1/submit", headers=headers, json={}).data)
    assert_clean(client.get("/api/v1/me", headers=headers).data)


def test_worker_grid_html_never_carries_vault_values(client, setup):
    ids, _ = setup
    assert client.post("/login", data={"username": "wes", "password": PASSWORD}).status_code in (
        302,
        303,
    )
    for url in ("/review/", f"/review/assignments/{ids['assignment']}"):
        response = client.get(url)
        assert response.status_code == 200
        assert_clean(response.data)
    grid = client.get(f"/review/assignments/{ids['assignment']}").data.decode()
    assert "cluster_id" not in grid and "income" not in grid


@pytest.mark.parametrize("kind", KINDS)
def test_no_export_is_served_to_a_worker(client, setup, kind):
    ids, headers = setup
    reply = client.get(f"/api/v1/projects/{ids['project']}/export/{kind}", headers=headers)
    assert reply.status_code == 403
    assert_clean(reply.data)
    client.post("/login", data={"username": "wes", "password": PASSWORD})
    reply = client.get(f"/projects/{ids['project']}/export/{kind}")
    assert reply.status_code == 403
    assert_clean(reply.data)


def test_the_managers_linked_export_keeps_the_truth_for_research(app, client, setup):
    ids, _ = setup
    client.post("/login", data={"username": "max", "password": PASSWORD})
    reply = client.get(f"/projects/{ids['project']}/export/linked")
    assert reply.status_code == 200
    lines = reply.data.decode().splitlines()
    header = lines[0].split(",")
    # The linkage clusters keep the name cluster_id; the vault's truth column is renamed.
    assert header == ["cluster_id", "linked_by", "income", "vault_cluster_id"]
    body = "\n".join(lines[1:])
    assert all(v in body for v in INCOME + TRUTH)
