"""``POST /api/v1/analytics/belief`` and ``GET /api/v1/admin/projects/<id>/audit``."""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest

from tests.api.conftest import make_worker
from tests.factories import make_token, make_user

EXAMPLE_23 = json.loads(
    (Path(__file__).resolve().parents[1] / "data" / "belief" / "example_23.json").read_text()
)


@pytest.fixture
def admin_headers(app):
    with app.app_context():
        return {"Authorization": f"Bearer {make_token(make_user('ada', 'admin'))}"}


def test_example_23_corrected(client, admin_headers):
    response = client.post("/api/v1/analytics/belief", json=EXAMPLE_23, headers=admin_headers)
    assert response.status_code == 200, response.get_json()
    out = response.get_json()
    assert out["pignistic"]["x1"] == {"exact": "7/26", "float": 7 / 26}
    assert out["pignistic_entropy"]["nats"] == pytest.approx(1.8300099, abs=1e-7)
    assert out["pignistic_entropy"]["bits"] == pytest.approx(1.8300099 / math.log(2))
    assert len(out["sets"]) == 2**8  # every subset of a frame of at most 10
    whole = next(s for s in out["sets"] if len(s["set"]) == 8)
    assert whole["bel"]["exact"] == "1" and whole["q"]["exact"] == "4/13"
    compat = out["compatibility"]
    assert not compat["compatible"] and compat["max_violation"]["exact"] == "5/26"
    assert compat["witness"] == ["x1", "x2", "x3", "x4", "x5"]


def test_dempster_is_not_acceptable_and_total_conflict(client, admin_headers):
    half = "1/2"
    body = {
        "frame": ["a", "b"],
        "m": [{"set": ["a"], "mass": half}, {"set": ["a", "b"], "mass": 0.5}],
        "m2": [{"set": ["a"], "mass": half}, {"set": ["a", "b"], "mass": half}],
        "P": {"a": half, "b": half},
        "sets": [["a"]],
    }
    out = client.post("/api/v1/analytics/belief", json=body, headers=admin_headers).get_json()
    assert out["dempster"]["sets"][0]["bel"]["exact"] == "3/4"
    assert out["acceptability"]["dempster"]["acceptable"] is False
    assert out["disjunctive"]["sets"][0]["bel"]["exact"] == "1/4"
    body.update(m=[{"set": ["a"], "mass": 1}], m2=[{"set": ["b"], "mass": 1}])
    out = client.post("/api/v1/analytics/belief", json=body, headers=admin_headers).get_json()
    assert out["dempster"] == {"error": "total_conflict"}
    assert out["conflict"]["exact"] == "1"


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"frame": []}, "frame: a non-empty list"),
        ({"m": [{"set": ["x9"], "mass": 1}]}, "m\\[0\\].set: 1 label"),
        ({"m": [{"set": ["x1"], "mass": "1/2"}]}, "sum to 1/2"),
        ({"m": [{"set": ["x1"], "mass": "half"}]}, "m\\[0\\].mass: not a number"),
        ({"P": {"x1": "1/2"}}, "P: sums to 1/2"),
    ],
)
def test_bad_bodies_are_named(client, admin_headers, change, message):
    response = client.post(
        "/api/v1/analytics/belief", json={**EXAMPLE_23, **change}, headers=admin_headers
    )
    assert response.status_code == 400
    assert response.get_json()["error"] == "bad_request"
    assert __import__("re").search(message, response.get_json()["message"])


def test_labels_are_opaque(client, admin_headers):
    body = {"frame": ["ab", "a", "b"], "m": [{"set": ["ab"], "mass": 1}]}
    out = client.post("/api/v1/analytics/belief", json=body, headers=admin_headers).get_json()
    assert out["pignistic"] == {
        "ab": {"exact": "1", "float": 1.0},
        "a": {"exact": "0", "float": 0.0},
        "b": {"exact": "0", "float": 0.0},
    }


def test_project_audit(app, client, admin_headers):
    worker = make_worker(app, client, model="pair")
    for pair_id, row, attribute, cell in worker.cells():
        if cell.get("next_level") == "partial":
            worker.reveal(pair_id, row, attribute)
    url = "/api/v1/admin/projects/1/audit"
    pair = client.get(url, headers=admin_headers).get_json()
    assert pair["model"] == "pair" and len(pair["rows"]) == 12
    assert pair["summary"]["mean_true_probability"]["exact"] == "3/4"
    assert pair["summary"]["kapr"]["exact"] == "11/144"
    row = client.get(url + "?model=row", headers=admin_headers).get_json()
    assert row["summary"]["mean_true_probability"] == {"exact": "41/72", "float": 41 / 72}
    assert row["assignments"][0]["worker"] == "wes"
    assert client.get(url + "?model=both", headers=admin_headers).status_code == 400
    assert client.get("/api/v1/admin/projects/99/audit", headers=admin_headers).status_code == 404
    assert client.get(url, headers=worker.headers).status_code == 403
