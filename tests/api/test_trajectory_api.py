"""``POST /api/v1/analytics/trajectory-risk`` and the job's JSON (admin token, multipart)."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest

from app.extensions import db
from app.models import Job
from tests.factories import make_token, make_user

DATA = Path(__file__).resolve().parents[1] / "data" / "trajectory"


@pytest.fixture
def tokens(app):
    with app.app_context():
        return {role: make_token(make_user(f"t-{role}", role)) for role in ("admin", "manager")}


def files(**form):
    return {
        "original": (io.BytesIO((DATA / "mock_original.csv").read_bytes()), "o.csv"),
        "anonymized": (io.BytesIO((DATA / "mock_anonymized.csv").read_bytes()), "a.csv"),
        **form,
    }


def post(client, token, data):
    return client.post(
        "/api/v1/analytics/trajectory-risk",
        data=data,
        headers={"Authorization": f"Bearer {token}"},
        content_type="multipart/form-data",
    )


def test_job_returns_the_clis_json_when_done(app, client, tokens, runner):
    response = post(client, tokens["admin"], files())
    assert response.status_code == 202
    job_id = response.get_json()["job_id"]
    status = client.get(
        response.headers["Location"], headers={"Authorization": f"Bearer {tokens['admin']}"}
    ).get_json()
    assert status["status"] == "done" and status["id"] == job_id
    report = status["report"]
    assert report["rl_percent"] == 28.26086956521739 and report["rl_exact"] == "13/46"
    cli = json.loads(
        runner.invoke(
            args=["analytics", "rl", "--original", str(DATA / "mock_original.csv"),
                  "--anonymized", str(DATA / "mock_anonymized.csv"), "--json"]
        ).output
    )  # fmt: skip
    assert {k: v for k, v in report.items() if k != "seconds"} == {
        k: v for k, v in cli.items() if k != "seconds"
    }


def test_windowed_options_reach_the_job(client, tokens):
    response = post(client, tokens["admin"], files(search="windowed", window_percent="1"))
    job = client.get(
        response.headers["Location"], headers={"Authorization": f"Bearer {tokens['admin']}"}
    ).get_json()
    assert job["report"]["rl_percent"] == 8.695652173913043


def test_bad_input_is_a_400_and_makes_no_job(app, client, tokens):
    response = post(client, tokens["admin"], files(distance="nope"))
    assert response.status_code == 400 and "unknown distance" in response.get_json()["message"]
    bad = files()
    bad["anonymized"] = (io.BytesIO(b"lon,lat\n1,2\n"), "bad.csv")
    response = post(client, tokens["admin"], bad)
    assert response.status_code == 400 and "bad.csv" in response.get_json()["message"]
    with app.app_context():
        assert db.session.query(Job).count() == 0


def test_only_admins(client, tokens):
    assert post(client, tokens["manager"], files()).status_code == 403
    assert client.post("/api/v1/analytics/trajectory-risk", data=files()).status_code == 401


def test_cancel_a_finished_job_is_a_conflict(client, tokens):
    job_id = post(client, tokens["admin"], files()).get_json()["job_id"]
    response = client.post(
        f"/api/v1/admin/jobs/{job_id}/cancel",
        headers={"Authorization": f"Bearer {tokens['admin']}"},
    )
    assert response.status_code == 409
