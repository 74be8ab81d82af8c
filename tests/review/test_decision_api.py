"""The decision endpoints and the linkage page's access rules."""

import pytest

from app.extensions import db
from app.models import DecisionEvent
from tests.factories import PASSWORD, make_token


def api(study, tail=""):
    return f"/api/v1/assignments/{study.mine}{tail}"


def test_saving_an_answer_appends_an_event_and_reports_progress(wes, study, app):
    pair = study.pairs[0]
    response = wes.post(
        api(study, "/decisions"), json={"pair_id": pair, "decision": "same", "confidence": "high"}
    )
    assert response.status_code == 201
    body = response.get_json()
    assert body["pair_id"] == pair and body["decision"] == "same" and body["confidence"] == "high"
    assert (body["decided"], body["total"]) == (1, 6)
    assert body["tally"]["same"] == 1 and body["tally"]["same-high"] == 1
    changed = wes.post(
        api(study, "/decisions"),
        json={"pair_id": pair, "decision": "different", "confidence": "low"},
    ).get_json()
    assert changed["version"] == changed["id"] > body["id"]
    listing = wes.get(api(study, "/decisions")).get_json()
    assert listing["decisions"] == {
        str(pair): {"decision": "different", "confidence": "low", "version": changed["id"]}
    }
    assert (listing["decided"], listing["total"], listing["resume_page"], listing["pages"]) == (
        1,
        6,
        1,
        2,
    )
    with app.app_context():
        assert db.session.query(DecisionEvent).count() == 2


@pytest.mark.parametrize(
    ("body", "status"),
    [
        ({"pair_id": "1", "decision": "same", "confidence": "high"}, 400),
        ({"pair_id": True, "decision": "same", "confidence": "high"}, 400),
        ({"pair_id": 10_000, "decision": "same", "confidence": "high"}, 404),
        ("not an object", 400),
    ],
)
def test_bad_answers_get_json_errors(wes, study, body, status):
    response = wes.post(api(study, "/decisions"), json=body)
    assert response.status_code == status
    assert response.is_json and response.get_json()["message"]


def test_invalid_decision_is_a_400(wes, study):
    body = {"pair_id": study.pairs[0], "decision": "same", "confidence": None}
    response = wes.post(api(study, "/decisions"), json=body)
    assert response.status_code == 400
    assert "confidence" in response.get_json()["message"]


def test_submit_lists_unanswered_pairs_then_moves_on(wes, study):
    response = wes.post(api(study, "/pages/1/submit"))
    assert response.status_code == 400
    assert response.get_json()["error"] == "unanswered"
    assert response.get_json()["unanswered"] == study.pairs[:4]
    for pair in study.pairs[:3]:
        wes.post(
            api(study, "/decisions"),
            json={"pair_id": pair, "decision": "same", "confidence": "low"},
        )
    assert wes.post(api(study, "/pages/1/submit")).get_json()["unanswered"] == [study.pairs[3]]
    wes.post(
        api(study, "/decisions"),
        json={"pair_id": study.pairs[3], "decision": "different", "confidence": "medium"},
    )
    body = wes.post(api(study, "/pages/1/submit"), json={"pair_ids": study.pairs[:4]}).get_json()
    assert body == {"page": 1, "next_page": 2, "complete": False, "decided": 4, "total": 6}


@pytest.mark.parametrize(
    ("page", "body", "status"),
    [
        (3, None, 404),
        (0, None, 404),
        (1, {"pair_ids": "all"}, 400),
        (1, {"pair_ids": [10_000]}, 400),
    ],
)
def test_submit_refuses_foreign_pairs_and_pages(wes, study, page, body, status):
    assert wes.post(api(study, f"/pages/{page}/submit"), json=body).status_code == status


@pytest.mark.parametrize(
    ("method", "tail"),
    [("get", "/decisions"), ("post", "/decisions"), ("post", "/pages/1/submit")],
)
def test_another_workers_assignment_is_forbidden(wes, study, method, tail):
    body = {"pair_id": study.pairs[0], "decision": "same", "confidence": "high"}
    response = getattr(wes, method)(f"/api/v1/assignments/{study.theirs}{tail}", json=body)
    assert response.status_code == 403
    assert response.get_json()["error"] == "forbidden"


def test_unknown_assignment_is_404_and_anonymous_is_401(client, wes, study):
    assert wes.get("/api/v1/assignments/999/decisions").status_code == 404
    wes.post("/logout")
    assert client.get(api(study, "/decisions")).status_code == 401


def test_a_bearer_token_can_save_answers(app, client, study):
    from app.models import User

    with app.app_context():
        token = make_token(db.session.get(User, study.wes_id))
    response = client.post(
        api(study, "/decisions"),
        json={"pair_id": study.pairs[0], "decision": "same", "confidence": "medium"},
        headers={"Authorization": f"Bearer {token}"},
    )
    assert response.status_code == 201


def test_the_page_is_a_shell_for_the_worker_only(wes, study):
    response = wes.get(f"/review/assignments/{study.mine}?page=2")
    assert response.status_code == 200
    html = response.get_data(as_text=True)
    assert 'data-page="2"' in html and "review-1.1.0.js" in html
    assert "Mary" not in html and "1964" not in html  # no record value reaches the shell
    assert wes.get(f"/review/assignments/{study.theirs}").status_code == 403
    assert wes.get(f"/review/assignments/{study.mine}?page=3").status_code == 404
    assert wes.get("/review/assignments/999").status_code == 404


def test_the_page_opens_where_the_worker_left_off(wes, study):
    for pair in study.pairs[:4]:
        wes.post(
            api(study, "/decisions"),
            json={"pair_id": pair, "decision": "same", "confidence": "low"},
        )
    assert 'data-page="2"' in wes.get(f"/review/assignments/{study.mine}").get_data(as_text=True)
    home = wes.get("/review/").get_data(as_text=True)
    assert "4 / 6" in home and f"/review/assignments/{study.mine}?page=2" in home


def test_managers_cannot_open_a_workers_page(client, study):
    client.post("/login", data={"username": "max", "password": PASSWORD})
    assert client.get(f"/review/assignments/{study.mine}").status_code == 403
