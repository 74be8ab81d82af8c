"""The JSON API takes what the browser import takes: a date layout per attribute, invalid
dates kept as missing and counted, generated record ids, name frequencies, counted problems."""

from __future__ import annotations

from sqlalchemy import select

from app.extensions import db
from app.models import Project, Record
from app.projects.staffing import assign_pairs
from tests.api.conftest import Worker
from tests.factories import make_token, make_user


def manager(app, client):
    with app.app_context():
        token = make_token(make_user("max", "manager"))
    return {"Authorization": f"Bearer {token}"}


def records_of(project_id: int) -> list[tuple[str, dict]]:
    rows = db.session.execute(
        select(Record.external_id, Record.values).where(Record.project_id == project_id)
    )
    return sorted((external, values) for external, values in rows)


SPEC = {
    "name": "FEBRL-like",
    "kind": "dedupe",
    "attributes": [
        {"name": "first_name"},
        {"name": "last_name"},
        {"name": "dob", "type": "date", "format": "%Y%m%d"},
    ],
    "records": [
        {"id": "r1", "first_name": "LYNN", "last_name": "WILDING", "dob": "19460704"},
        {"id": "r2", "first_name": "LYNN", "last_name": "WILDING", "dob": "19461304"},
        {"id": "r3", "first_name": "JEAN", "last_name": "ADAMS", "dob": ""},
    ],
}


def test_a_date_format_and_invalid_dates_as_error_by_default(app, client):
    headers = manager(app, client)
    refused = client.post("/api/v1/projects", json=SPEC, headers=headers)
    body = refused.get_json()
    assert refused.status_code == 400 and body["total"] == 1
    assert body["problems"] == [
        "source A, record 2, dob: not a calendar date (month must be in 1..12)"
    ]
    made = client.post(
        "/api/v1/projects", json=SPEC | {"invalid_dates": "missing"}, headers=headers
    )
    assert made.status_code == 201, made.get_json()
    kept = made.get_json()["invalid_dates_kept_missing"]
    assert kept["total"] == 1 and "record 2, dob" in kept["first"][0]
    with app.app_context():
        values = [(e, v["dob"]) for e, v in records_of(made.get_json()["id"])]
    assert values == [("r1", "07041946"), ("r2", None), ("r3", None)]


def test_a_bad_format_is_refused_by_name(app, client):
    spec = SPEC | {"attributes": [{"name": "first_name", "format": "%Y%m%d"},
                                  {"name": "dob", "type": "date", "format": "%H:%M"}]}  # fmt: skip
    body = client.post("/api/v1/projects", json=spec, headers=manager(app, client)).get_json()
    assert body["problems"] == [
        "attribute 'first_name': a 'format' is for identifying dates",
        "attribute 'dob': a date format may only use %Y, %m and %d (and separators)",
    ]


def test_generated_ids_and_the_repeated_id_as_ground_truth(app, client):
    spec = {
        "name": "Clusters", "kind": "dedupe", "record_ids": "generated",
        "attributes": [{"name": "first_name"}, {"name": "cluster", "truth": True}],
        "records": [{"first_name": n, "cluster": c} for n, c in
                    [("LYNN", "1"), ("LYN", "1"), ("JEAN", "2")]],
    }  # fmt: skip
    headers = manager(app, client)
    made = client.post("/api/v1/projects", json=spec, headers=headers)
    assert made.status_code == 201, made.get_json()
    project_id = made.get_json()["id"]
    with app.app_context():
        ids = [external for external, _ in records_of(project_id)]
    assert ids == ["record-1", "record-2", "record-3"]
    utility = client.get(f"/api/v1/projects/{project_id}/risk-utility", headers=headers)
    utility = utility.get_json()
    assert utility["truth_pairs"] == 3 and utility["truth"] == "the column 'cluster'"


def test_name_frequencies_reach_the_workers_markers(app, client):
    spec = SPEC | {
        "invalid_dates": "missing",
        "name_frequencies": {"first": {"LYNN": 100, "JEAN": 1}, "last": {"WILDING": 5000}},
        "pairs": [["r1", "r2"], ["r1", "r3"]],
    }
    made = client.post("/api/v1/projects", json=spec, headers=manager(app, client))
    assert made.status_code == 201, made.get_json()
    with app.app_context():
        worker = make_user("wes", "worker")
        project = db.session.get(Project, made.get_json()["id"])
        assignment = assign_pairs(project, worker, 1.0)
        db.session.commit()
        marks = Worker(client, make_token(worker), assignment.id).page().get_json()["pairs"]
    first = marks[0]["rows"][0]["frequency"]
    # LYNN at 100 in the counts: common, not rare (2 of 3 records).
    assert first == {"first_name": "common", "last_name": "very_common"}


def test_frequencies_need_name_attributes_and_every_problem_is_counted(app, client):
    spec = {
        "name": "x", "kind": "dedupe",
        "attributes": [{"name": "dob", "type": "date"}],
        "records": [{"id": str(i), "dob": "02/30/2000"} for i in range(80)]
                   + [{"id": "0", "dob": ""}] * 5,
        "name_frequencies": {"first": {"A": 3}},
    }  # fmt: skip
    body = client.post("/api/v1/projects", json=spec, headers=manager(app, client)).get_json()
    # 80 impossible dates, 5 repeated ids, no name attributes for the counts: 86, 50 listed.
    assert body["total"] == 86 and len(body["problems"]) == 50
    assert body["message"].endswith("and 76 more")
    assert "need identifying first- and last-name" not in str(body["problems"])  # the 86th
    with app.app_context():
        assert db.session.query(Record).count() == 0


def test_the_api_document_names_the_real_token_command(client):
    text = client.get("/api/v1/openapi.json").get_json()["info"]["description"]
    assert "flask --app app users token NAME" in text and "tokens create" not in text
