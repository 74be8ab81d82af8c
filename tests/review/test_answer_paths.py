"""The answer's request path: a few statements (no BEGIN/COMMIT on PostgreSQL) and the same
refusals, in the same order, as before (SQLite and PostgreSQL)."""

import pytest

from app.extensions import db
from app.models import DecisionEvent
from tests.api.conftest import make_worker
from tests.review.test_reveal_paths import statements_of


def answer(worker, pair_id, decision="same", confidence="high", assignment=None):
    body = {"pair_id": pair_id, "decision": decision, "confidence": confidence}
    return worker.client.post(
        f"/api/v1/assignments/{assignment or worker.assignment_id}/decisions",
        json=body,
        headers=worker.headers,
    )


def pair_ids(worker) -> list[int]:
    return sorted({p for p, _r, _a, _c in worker.cells()})


def test_an_answer_is_three_statements(app, client):
    worker = make_worker(app, client)
    first, second = pair_ids(worker)[:2]
    assert answer(worker, first).status_code == 201  # warms the token cache
    responses = []
    seen = statements_of(app, lambda: responses.append(answer(worker, second, "different")))
    body = responses[0].get_json()
    assert responses[0].status_code == 201
    assert (body["decided"], body["tally"]["same"], body["tally"]["different-high"]) == (2, 1, 1)
    with app.app_context():
        dialect = db.engine.dialect.name
        assert db.session.get(DecisionEvent, body["id"]).decision == "different"
    if dialect == "postgresql":  # owner read, insert, summary: each atomic, no BEGIN/COMMIT
        assert seen == ["SELECT", "INSERT", "SELECT"]
    else:
        assert seen == [
            "BEGIN",
            "SELECT",
            "INSERT",
            "SELECT",
        ]  # BEGIN IMMEDIATE; COMMIT is not a statement here


@pytest.mark.parametrize(
    ("case", "status", "message"),
    [
        ("unknown assignment", 404, "no such assignment"),
        ("another's assignment", 403, "another worker"),
        ("another's assignment, bad answer", 403, "another worker"),
        ("bad answer", 400, "confidence"),
        ("unsure not allowed", 400, "does not allow"),
        ("pair not in the assignment", 404, "not part of the assignment"),
    ],
)
def test_refusals_keep_their_order(app, client, case, status, message):
    worker = make_worker(app, client)
    other = make_worker(app, client, name="wen")
    mine, theirs = pair_ids(worker)[0], pair_ids(other)[0]
    assignment, pair, decision, confidence = worker.assignment_id, mine, "same", "high"
    if case == "unknown assignment":
        assignment = 99_999
    elif case.startswith("another's"):
        assignment, pair = other.assignment_id, theirs
        if case.endswith("bad answer"):  # passes the schema, refused by the service
            decision = "unsure"
    elif case == "bad answer":
        confidence = None
    elif case == "unsure not allowed":
        decision, confidence = "unsure", None
    else:
        pair = 99_999
    response = answer(worker, pair, decision, confidence, assignment)
    assert response.status_code == status
    assert message in response.get_json()["message"]
    with app.app_context():
        assert db.session.query(DecisionEvent).count() == 0
