"""The hostile inputs that used to be 5xx are clear 400s (issue 13), on both databases."""

from __future__ import annotations

import pytest

from tests.factories import make_assignment, make_token, make_user, paper_project


@pytest.fixture
def api(app, client):
    with app.app_context():
        manager = make_user("mia", "manager")
        worker = make_user("wes", "worker")
        project = paper_project(manager)
        assignment = make_assignment(project, worker, 0.5)
        ids = {"project": project.id, "assignment": assignment.id}
        headers = {"Authorization": f"Bearer {make_token(manager)}"}
        worker_headers = {"Authorization": f"Bearer {make_token(worker)}"}

    def post(path, raw=None, worker=False, **kwargs):
        path = path.format(**ids)
        send = worker_headers if worker else headers
        if raw is not None:
            kwargs.update(data=raw, content_type="application/json")
        return client.post(f"/api/v1{path}", headers=send, **kwargs)

    return post


def assert_refused(response, *fragments):
    assert response.status_code == 400, response.get_data(as_text=True)
    message = response.get_json()["message"]
    for fragment in fragments:
        assert fragment in message, message
    return message


def test_deeply_nested_json(api):
    deep = "[" * 100_000 + "]" * 100_000
    assert_refused(api("/projects", raw=deep), "nested deeper")
    assert_refused(api("/projects", raw='{"a":' * 40 + "1" + "}" * 40), "nested deeper than 32")


def test_non_string_policy(api):
    for policy in (5, ["manager"], {"x": 1}, None):
        assert_refused(
            api("/projects/{project}/conflicts/policy", json={"policy": policy}), "policy"
        )


@pytest.mark.parametrize("number", ["9223372036854775808", "-9223372036854775809", "1" * 5000])
def test_integers_beyond_64_bits(api, number):
    raw = f'{{"pair_id": {number}, "row": 0, "attribute": "last_name"}}'
    assert_refused(api("/assignments/{assignment}/reveal", raw=raw, worker=True))


@pytest.mark.parametrize("big", [2**31, 2**53, 2**64])
def test_ids_beyond_the_id_column_are_not_found_or_refused(api, client, big):
    assert api(f"/projects/{big}/assignments", json={"worker": "wes"}).status_code == 404
    raw = f'{{"pair_id": {big}, "row": 0, "attribute": "name"}}'
    response = api("/assignments/{assignment}/reveal", raw=raw, worker=True)
    if big < 2**53:  # a pair's name may be a handle (below 2**53): no pair has this one
        assert (
            response.status_code == 404
            and "not in your assignment" in response.get_json()["message"]
        )
        return
    assert_refused(response, "64 bits" if big > 2**63 else "body.pair_id")


@pytest.mark.parametrize("budget", ["NaN", "Infinity", "-Infinity", "1e999"])
def test_non_finite_budgets(api, budget):
    raw = f'{{"worker": "wes", "budget": {budget}}}'
    assert_refused(api("/projects/{project}/assignments", raw=raw), "finite")


def test_nul_in_names_and_values(api, client):
    spec = {"name": "a\x00b", "kind": "dedupe", "attributes": [{"name": "n"}], "records": []}
    assert_refused(api("/projects", json=spec), "body.name", "NUL")
    assert_refused(api("/projects/{project}/assignments", json={"worker": "w\x00"}), "NUL")
    response = client.post("/login", data={"username": "wes\x00", "password": "x" * 8})
    assert response.status_code == 400 and b"\x00" not in response.data


def test_names_over_the_column_length(app, api):
    spec = {
        "name": "P" * (app.config["MAX_NAME_CHARS"] + 1),
        "kind": "dedupe",
        "attributes": [{"name": "n"}],
        "records": [{"id": "1", "n": "x"}, {"id": "2", "n": "y"}],
    }
    assert_refused(api("/projects", json=spec), "body.name", "longer than 200")
    spec["name"] = "ok"
    spec["attributes"] = [{"name": "a" * 101}]
    assert_refused(api("/projects", json=spec), "body.attributes[0].name")
    spec["attributes"] = [{"name": "n"}]
    spec["records"][1]["id"] = "9" * 101
    assert_refused(api("/projects", json=spec), "body.records[1].id")
    assert_refused(api("/projects/{project}/assignments", json={"worker": "w" * 81}), "body.worker")


def test_values_over_the_limit_name_the_place_not_the_value(app, api):
    secret = "SECRETVALUE" * 100
    spec = {
        "name": "long",
        "kind": "dedupe",
        "attributes": [{"name": "n"}],
        "records": [{"id": "1", "n": "x"}, {"id": "2", "n": secret}],
    }
    message = assert_refused(api("/projects", json=spec), "body.records[1].n", "1,000")
    assert "SECRET" not in message


def test_a_body_that_is_not_json(api):
    assert_refused(api("/projects", raw="{not json"), "not valid JSON")


def test_a_record_over_the_per_record_limit(app, api):
    wide = {f"a{k}": "x" * 900 for k in range(12)}  # each value fits, together 10,800
    spec = {
        "name": "wide",
        "kind": "dedupe",
        "attributes": [{"name": name} for name in wide],
        "records": [{"id": "1", **wide}, {"id": "2", **wide}],
    }
    assert_refused(api("/projects", json=spec), "body.records[0]", "10,000")
