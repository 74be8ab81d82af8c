"""Per-project release thresholds: the page, the gate on the linked export, confirmations."""

from __future__ import annotations

import copy
import csv
import io

import pytest
from sqlalchemy import select

from app.demo import PAPER_EXAMPLE
from app.extensions import db
from app.models import ReleaseConfirmation, ReleasePolicy
from tests.factories import PASSWORD, make_token, make_user, paper_project


def _spec() -> dict:
    spec = copy.deepcopy(PAPER_EXAMPLE)
    spec["attributes"].append({"name": "zip", "type": "category", "sensitive": True})
    for record, zip_code in zip(spec["records"], ["100", "100", "200", "100"], strict=True):
        record["zip"] = zip_code
    return spec


@pytest.fixture
def setup(app, client):
    with app.app_context():
        manager = make_user("max", "manager")
        make_user("ada", "admin")
        project = paper_project(manager, **_spec())
        token = make_token(manager)
        project_id = project.id
    client.post("/login", data={"username": "max", "password": PASSWORD})
    return project_id, {"Authorization": f"Bearer {token}"}


def test_page_shows_the_report_chart_and_classes(client, setup):
    project_id, _ = setup
    page = client.get(f"/projects/{project_id}/release-risk?population=400")
    assert page.status_code == 200
    text = page.get_data(as_text=True)
    assert 'id="release-k"' in text and "<strong>1</strong>" in text
    assert "Records by re-identification risk" in text and "chart-spec" in text
    assert 'id="release-drivers"' in text and "200" in text  # zip 200 is the unique class
    report = client.get(f"/projects/{project_id}/release-risk.json?population=400").json
    assert report["k"] == 1 and report["population_uniqueness"]["dankar"] is not None
    rows = list(
        csv.reader(io.StringIO(client.get(f"/projects/{project_id}/release-risk.csv").text))
    )
    assert rows[0] == ["zip", "records", "class size", "risk"] and rows[1][:2] == ["200", "1"]
    histogram = client.get(f"/projects/{project_id}/release-risk.histogram.csv").text
    assert "(0.5, 1]" in histogram
    bad = client.get(f"/projects/{project_id}/release-risk?qi=nope")
    assert bad.status_code == 400 and "&#39;nope&#39;" in bad.get_data(as_text=True)


def test_admin_may_not_read_the_page(client, setup):
    project_id, _ = setup
    client.post("/logout")
    client.post("/login", data={"username": "ada", "password": PASSWORD})
    assert client.get(f"/projects/{project_id}/release-risk").status_code == 403


def _save(client, project_id, **limits):
    form = {"qi": "", "sensitive": "", "population": "", "threshold": "0.2",
            "suppressed": "exclude", "missing": "*", "on_exceed": "confirm", **limits}  # fmt: skip
    return client.post(f"/projects/{project_id}/release-risk/policy", data=form)


def test_without_thresholds_the_linked_export_leaves(client, setup):
    project_id, _ = setup
    assert client.get(f"/projects/{project_id}/export/linked").status_code == 200


def test_above_the_thresholds_the_export_asks_for_a_recorded_confirmation(app, client, setup):
    project_id, headers = setup
    assert _save(client, project_id, min_k="2").status_code == 302
    blocked = client.get(f"/projects/{project_id}/export/linked")
    assert blocked.status_code == 409 and "k = 1 is below the minimum 2" in blocked.text
    api = client.get(f"/api/v1/projects/{project_id}/export/linked", headers=headers)
    assert api.status_code == 409
    page = client.get(f"/projects/{project_id}/release-risk").get_data(as_text=True)
    assert 'id="release-confirm"' in page
    empty = client.post(f"/projects/{project_id}/release-risk/confirm", data={"reason": " "})
    assert empty.status_code == 302  # back to the page: no reason, no export
    done = client.post(
        f"/projects/{project_id}/release-risk/confirm", data={"reason": "ethics approval 42"}
    )
    assert done.status_code == 200 and done.text.startswith("cluster_id")
    by_api = client.post(
        f"/api/v1/projects/{project_id}/export/linked", json={"reason": "script"}, headers=headers
    )
    assert by_api.status_code == 200 and by_api.text.startswith("cluster_id")
    with app.app_context():
        rows = db.session.scalars(
            select(ReleaseConfirmation).order_by(ReleaseConfirmation.id)
        ).all()
        assert [r.reason for r in rows] == ["ethics approval 42", "script"]
        assert all("k = 1 is below the minimum 2" in r.exceeded for r in rows)
    listed = client.get(f"/projects/{project_id}/release-risk").get_data(as_text=True)
    assert "ethics approval 42" in listed and "max" in listed


def test_a_refusing_project_refuses_even_with_a_reason(client, setup):
    project_id, headers = setup
    _save(client, project_id, max_records_at_risk="0.1", on_exceed="refuse")
    assert client.get(f"/projects/{project_id}/export/linked").status_code == 403
    by_api = client.post(
        f"/api/v1/projects/{project_id}/export/linked", json={"reason": "please"}, headers=headers
    )
    assert by_api.status_code == 403


def test_within_the_thresholds_the_export_leaves_and_bad_limits_are_not_saved(app, client, setup):
    project_id, _ = setup
    _save(client, project_id, min_k="1", min_l="1")
    assert client.get(f"/projects/{project_id}/export/linked").status_code == 200
    _save(client, project_id, max_average_risk="7")  # not a fraction: nothing changes
    _save(client, project_id, max_average_risk="nan")
    _save(client, project_id, min_k=str(2**40))  # past an INTEGER column
    _save(client, project_id, min_k="1", population=str(2**60))
    with app.app_context():
        policy = db.session.scalar(select(ReleasePolicy))
        assert (policy.min_k, policy.max_average_risk) == (1, None)


def test_deleting_the_project_deletes_its_policy_and_confirmations(app, client, setup):
    project_id, _ = setup
    _save(client, project_id, min_k="2")
    client.post(f"/projects/{project_id}/release-risk/confirm", data={"reason": "ok"})
    with app.app_context():
        assert db.session.scalar(select(ReleaseConfirmation)) is not None
    name = client.get(f"/projects/{project_id}/delete")
    assert name.status_code == 200
    gone = client.post(
        f"/projects/{project_id}/delete", data={"confirm_name": "Paper example (KAPR §4.3)"}
    )
    assert gone.status_code == 302
    with app.app_context():
        assert db.session.scalar(select(ReleasePolicy)) is None
        assert db.session.scalar(select(ReleaseConfirmation)) is None


@pytest.mark.parametrize("name", ["-dx", "@dx", "=dx"])
def test_a_column_named_like_a_formula_is_measured_and_exported(app, client, name):
    """The export guards the header (``'-dx``); the gate measures the column by its name."""
    spec = copy.deepcopy(PAPER_EXAMPLE)
    spec["attributes"].append({"name": name, "type": "category", "sensitive": True})
    for record, code in zip(spec["records"], ["a", "a", "b", "a"], strict=True):
        record[name] = code
    with app.app_context():
        project_id = paper_project(make_user("max", "manager"), **spec).id
    client.post("/login", data={"username": "max", "password": PASSWORD})
    exported = client.get(f"/projects/{project_id}/export/linked")
    assert exported.status_code == 200
    assert f"'{name}" in next(csv.reader(io.StringIO(exported.text)))
    report = client.get(f"/projects/{project_id}/release-risk.json").json
    assert report["qi"] == [name] and report["k"] == 1
    assert _save(client, project_id, min_k="2").status_code == 302
    blocked = client.get(f"/projects/{project_id}/export/linked")
    assert blocked.status_code == 409 and "k = 1 is below the minimum 2" in blocked.text
