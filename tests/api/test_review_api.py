"""The worker API on the paper's worked example (KAPR paper §4.3, spec/README.md §2)."""

from fractions import Fraction

import pytest

from tests.api.conftest import make_worker


def reveal_all(worker, to_level):
    """Reveal every cell whose next level is ``to_level``; check each preview is the charge."""
    for pair_id, row, attribute, cell in list(worker.cells()):
        if cell["next_level"] != to_level:
            continue
        before = worker.page().get_json()
        preview = next(c for p, r, a, c in worker.cells() if (p, r, a) == (pair_id, row, attribute))
        response = worker.reveal(pair_id, row, attribute)
        assert response.status_code == 200, response.get_json()
        body = response.get_json()
        assert body["cost_exact"] == preview["next_cost_exact"]
        kapr_before = Fraction(before["assignment"]["kapr_exact"])
        assert Fraction(body["assignment"]["kapr_exact"]) == kapr_before + Fraction(
            body["cost_exact"]
        )
        assert body["cell"]["level"] == to_level


@pytest.mark.parametrize(("model", "partial"), [("row", "7/108"), ("pair", "11/144")])
def test_paper_example_scores(app, client, model, partial):
    worker = make_worker(app, client, model=model)
    assert worker.page().get_json()["assignment"]["kapr_exact"] == "0"
    reveal_all(worker, "partial")
    assert worker.page().get_json()["assignment"]["kapr_exact"] == partial
    reveal_all(worker, "full")
    reveal_all(worker, "full")  # cells that were masked with no partial level
    body = worker.page().get_json()
    assert body["assignment"]["kapr_exact"] == "3/4"
    assert all(c["next_level"] is None for *_, c in worker.cells())
    assert body["assignment"]["characters"]["percent"] == 100.0


def test_masked_page_discloses_no_character(worker):
    body = worker.page().get_json()
    for pair in body["pairs"]:
        for row in pair["rows"]:
            for cell in row["cells"].values():
                assert cell["level"] == "masked"
                assert all(s["kind"] != "shown" for s in cell["display"])
    text = str(body)
    for value in ("Mary", "Mark", "1964", "Hispanic", "Black", "69,426"):
        assert value not in text


def test_partial_shows_only_the_differing_characters(worker):
    pair = worker.page().get_json()["pairs"][0]  # Mary / Mark
    body = worker.reveal(pair["id"], 0, "name").get_json()
    shown = [s["text"] for s in body["cell"]["display"] if s["kind"] == "shown"]
    assert shown == ["y"]
    assert body["cell"]["disclosed"] == 1 and body["cell"]["total"] == 4
    assert "Mary" not in str(body) and "Mark" not in str(body)


def test_budget_is_enforced_and_a_refusal_changes_nothing(app, client):
    worker = make_worker(app, client, budget=0.01)
    pair = worker.page().get_json()["pairs"][0]
    first = worker.reveal(pair["id"], 1, "name")  # ***k: k = 1, costs 1/144 < 0.01
    assert first.status_code == 200
    refused = worker.reveal(pair["id"], 1, "name")  # to full: 3/144 more, over budget
    assert refused.status_code == 409
    assert refused.get_json()["error"] == "budget_exceeded"
    after = worker.page().get_json()
    assert after["assignment"]["kapr_exact"] == "1/144"
    cell = after["pairs"][0]["rows"][1]["cells"]["name"]
    assert cell["level"] == "partial" and cell["affordable"] is False


def test_nothing_left_to_reveal_is_409(worker):
    pair = worker.page().get_json()["pairs"][0]
    assert worker.reveal(pair["id"], 0, "race").status_code == 200  # category: straight to full
    response = worker.reveal(pair["id"], 0, "race")
    assert response.status_code == 409
    assert response.get_json()["error"] == "nothing_to_reveal"


def test_unauthenticated_is_401_json(client, worker):
    response = client.get(f"/api/v1/assignments/{worker.assignment_id}")
    assert response.status_code == 401 and response.is_json
    response = client.post(f"/api/v1/assignments/{worker.assignment_id}/reveal", json={})
    assert response.status_code == 401 and response.is_json


def test_another_workers_assignment_is_403(app, client, worker):
    other = make_worker(app, client, name="eve")
    assert other.page().status_code == 200
    response = client.get(f"/api/v1/assignments/{worker.assignment_id}", headers=other.headers)
    assert response.status_code == 403 and response.get_json()["error"] == "forbidden"
    pair = worker.page().get_json()["pairs"][0]
    response = other.reveal(pair["id"], 0, "name", assignment_id=worker.assignment_id)
    assert response.status_code == 404 and response.is_json


def test_a_pair_outside_the_assignment_is_404(app, client, worker):
    other = make_worker(app, client, name="eve")
    foreign = other.page().get_json()["pairs"][0]["id"]
    response = worker.reveal(foreign, 0, "name")
    assert response.status_code == 404
    assert response.get_json()["error"] == "not_found"


@pytest.mark.parametrize(
    "body",
    [
        None,
        {"pair_id": "1", "row": 0, "attribute": "name"},
        {"pair_id": 1, "row": 2, "attribute": "name"},
        {"pair_id": 1, "row": 0, "attribute": "income"},
    ],
)
def test_bad_reveal_requests_are_refused(worker, body):
    pair_id = worker.page().get_json()["pairs"][0]["id"]
    if body and isinstance(body.get("pair_id"), int):
        body["pair_id"] = pair_id
    response = worker.client.post(
        f"/api/v1/assignments/{worker.assignment_id}/reveal", json=body, headers=worker.headers
    )
    assert response.status_code in (400, 404) and response.is_json
    assert worker.page().get_json()["assignment"]["kapr_exact"] == "0"


def test_the_sensitive_attribute_is_never_a_column(worker):
    body = worker.page().get_json()
    assert [a["name"] for a in body["attributes"]] == ["name", "dob", "race"]


def test_pages(app, client):
    worker = make_worker(app, client, page_size=4)
    first, second = worker.page(1).get_json(), worker.page(2).get_json()
    assert first["assignment"]["pages"] == 2
    assert len(first["pairs"]) == 4 and len(second["pairs"]) == 2
    assert second["pairs"][0]["position"] == 4
    assert worker.page(3).status_code == 404


def test_start_partial_is_charged_as_the_starting_kapr(app, client):
    from app.extensions import db
    from app.models import Project, User
    from app.projects.staffing import AssignmentError, assign_pairs
    from tests.factories import make_user

    worker = make_worker(app, client)
    with app.app_context():
        project = db.session.get(Project, 1)
        eve = make_user("eve", "worker")
        assignment = assign_pairs(project, eve, 1.0, start_partial=["name", "dob"])
        db.session.commit()
        assert assignment.kapr_exact == "7/108"  # the paper's Table 4 state
        with pytest.raises(AssignmentError, match="over the budget"):
            assign_pairs(project, make_user("zed", "worker"), 0.01, start_partial=["dob"])
        db.session.rollback()
        assert db.session.query(User).count() >= 3
    assert worker.page().status_code == 200
