"""Linkage outputs read from CSV, JSON and a trajectory RL result; CLI and API."""

from __future__ import annotations

import pytest

from app.analytics.belief import BeliefRequestError, audit_upload
from tests.factories import make_token, make_user

CSV = """record,candidates,mass,truth
y1,x1,1/2,x3
y1,x3,1/2,x3
y2,x4|x6,1,x4|x5
y3,x7,1,x8
y4,x1|x2,1,x1
"""


def test_csv():
    out = audit_upload(CSV, "links.csv")
    assert out["summary"]["records"] == 4 and out["summary"]["overconfident"] == 3
    y1, y2, y3, y4 = out["records"]
    assert y4["compatible"] and y4["true_probability"]["exact"] == "1/2"
    assert y1["overconfident"] and y1["max_violation"]["exact"] == "1/2"  # x1 is not the truth
    assert y2["overconfident"] and not y2["support_ok"]  # misses the true x5
    assert y3["true_probability"]["exact"] == "0" and y3["argmax_outside_true_set"]


def test_json_probabilities_and_masses():
    body = (
        '{"records": [{"record": "y1", "truth": "x1", "probabilities": {"x1": 0.25, "x2": 0.75}},'
        '{"record": "y2", "truth": ["x1"], "masses": [{"set": ["x1", "x2"], "mass": "1"}]}]}'
    )
    out = audit_upload(body)
    assert out["records"][0]["argmax_outside_true_set"] and out["records"][0]["overconfident"]
    assert (
        out["records"][1]["compatible"] and out["records"][1]["true_probability"]["exact"] == "1/2"
    )


def test_trajectory_result():
    result = {
        "exact": {
            "links": [
                {"anonymized_id": 7, "closest_ids": [7, 8], "ties": 2, "probability": "1/2"},
                {"anonymized_id": 9, "closest_ids": [3], "ties": 1, "probability": "0"},
            ]
        }
    }
    import json

    out = audit_upload(json.dumps(result))
    first, second = out["records"]
    assert (
        first["record"] == "7"
        and first["compatible"]
        and first["true_probability"]["exact"] == "1/2"
    )
    assert second["overconfident"] and second["max_violation"]["exact"] == "1"


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("record,mass\ny,1\n", "header must name"),
        ("record,candidates,mass,truth\ny,x,1/2,x\n", "line 2 .*: the masses do not sum to 1"),
        ("record,candidates,mass,truth\ny,x,1,\n", "without a truth"),
        ('{"records": []}', "non-empty list"),
        ("{broken", "not valid JSON"),
    ],
)
def test_bad_uploads(text, message):
    with pytest.raises(BeliefRequestError, match=message):
        audit_upload(text)


def test_cli_and_api(app, client, runner, tmp_path):
    path = tmp_path / "links.csv"
    path.write_text(CSV)
    result = runner.invoke(args=["analytics", "links", str(path)])
    assert result.exit_code == 0, result.output
    assert "4 records: 1 compatible, 3 over-confident" in result.output
    with app.app_context():
        headers = {"Authorization": f"Bearer {make_token(make_user('ada', 'admin'))}"}
    response = client.post(
        "/api/v1/analytics/belief/links", data=CSV, content_type="text/csv", headers=headers
    )
    assert response.status_code == 200 and response.get_json()["summary"]["compatible"] == 1
    bad = client.post("/api/v1/analytics/belief/links", json={"records": 3}, headers=headers)
    assert bad.status_code == 400 and "records" in bad.get_json()["message"]
