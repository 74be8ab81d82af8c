"""Two tabs of one worker: refusals carry the server's meters, a stale view is refused without
a charge, and an answer changed elsewhere is reported instead of silently overwritten."""

from __future__ import annotations

from fractions import Fraction

from app.extensions import db
from app.models import Assignment, DecisionEvent
from tests.api.conftest import make_worker


def stored(app, assignment_id):
    with app.app_context():
        a = db.session.get(Assignment, assignment_id)
        return a.kapr_exact, a.chars_disclosed, a.chars_total, a.budget


def test_a_budget_refusal_carries_the_meters_as_stored(app, client):
    worker = make_worker(app, client, budget=0.02)
    refused = None
    for pair_id, row, attribute, cell in list(worker.cells()):
        if cell["next_level"] is None:
            continue
        answer = worker.reveal(pair_id, row, attribute)
        if answer.status_code == 409:
            refused = answer.get_json()
            break
    assert refused is not None and refused["error"] == "budget_exceeded"
    kapr_exact, disclosed, total, budget = stored(app, worker.assignment_id)
    meters = refused["assignment"]
    assert meters["kapr_exact"] == kapr_exact and meters["kapr"] == float(Fraction(kapr_exact))
    assert (meters["budget"], meters["budget_exact"]) == (budget, "1/50")
    assert meters["characters"]["disclosed"] == disclosed and meters["characters"]["total"] == total
    assert Fraction(refused["next_cost_exact"]) + Fraction(kapr_exact) > Fraction(1, 50)


def test_a_stale_view_is_refused_without_a_charge(app, client):
    worker = make_worker(app, client)
    pair_id, row, attribute, cell = next(c for c in worker.cells() if c[3]["level"] == "masked")
    first = worker.client.post(  # tab 2 reveals the cell (tab 1 still shows it masked)
        f"/api/v1/assignments/{worker.assignment_id}/reveal",
        json={"pair_id": pair_id, "row": row, "attribute": attribute, "shown_level": "masked"},
        headers=worker.headers,
    )
    assert first.status_code == 200
    before = stored(app, worker.assignment_id)
    again = worker.client.post(  # tab 1 clicks the same cell, still shown masked there
        f"/api/v1/assignments/{worker.assignment_id}/reveal",
        json={"pair_id": pair_id, "row": row, "attribute": attribute, "shown_level": "masked"},
        headers=worker.headers,
    )
    assert again.status_code == 409
    body = again.get_json()
    assert body["error"] == "stale" and body["level"] == first.get_json()["cell"]["level"]
    assert body["assignment"]["kapr_exact"] == before[0]  # the meters tab 1 must show
    assert stored(app, worker.assignment_id) == before  # nothing charged
    without = worker.reveal(pair_id, row, attribute)  # a script not sending it: as before
    assert without.status_code in (200, 409)


def test_nothing_to_reveal_carries_the_meters(app, client):
    worker = make_worker(app, client)
    pair_id, row, attribute, _ = next(worker.cells())
    while (answer := worker.reveal(pair_id, row, attribute)).status_code == 200:
        pass
    assert answer.status_code == 409 and answer.get_json()["error"] == "nothing_to_reveal"
    assert answer.get_json()["assignment"]["kapr_exact"] == stored(app, worker.assignment_id)[0]


def test_an_answer_changed_in_another_tab_is_reported_not_overwritten(app, client):
    worker = make_worker(app, client)
    url = f"/api/v1/assignments/{worker.assignment_id}/decisions"
    page = worker.page().get_json()
    pair = page["pairs"][0]
    assert pair["decision"] is None and pair["answer_version"] is None

    def save(decision, confidence, version):
        body = {"pair_id": pair["id"], "decision": decision, "confidence": confidence}
        return worker.client.post(url, json=body | {"version": version}, headers=worker.headers)

    tab2 = save("same", "high", None)
    assert tab2.status_code == 201 and tab2.get_json()["version"] == tab2.get_json()["id"]
    tab1 = save("different", "low", None)  # tab 1 still thinks the pair is unanswered
    assert tab1.status_code == 409
    body = tab1.get_json()
    assert body["error"] == "answer_changed" and body["version"] == tab2.get_json()["id"]
    assert body["current"] == {"decision": "same", "confidence": "high"}
    with app.app_context():
        assert db.session.query(DecisionEvent).count() == 1  # nothing saved

    again = save("different", "low", body["version"])  # tab 1 chooses again, knowingly
    assert again.status_code == 201
    assert worker.page().get_json()["pairs"][0]["answer_version"] == again.get_json()["id"]

    clear = worker.client.post(
        f"{url}/clear", json={"pair_id": pair["id"], "version": body["version"]},
        headers=worker.headers,
    )  # fmt: skip
    assert clear.status_code == 409 and clear.get_json()["current"]["decision"] == "different"
    cleared = worker.client.post(
        f"{url}/clear", json={"pair_id": pair["id"], "version": again.get_json()["id"]},
        headers=worker.headers,
    )  # fmt: skip
    assert cleared.status_code == 201
    after_clear = save("same", "low", again.get_json()["id"])  # the clear is a version too
    assert after_clear.status_code == 409 and after_clear.get_json()["current"] is None
    assert save("same", "low", cleared.get_json()["version"]).status_code == 201
    # Without a version (scripts written before): the newest answer wins, as documented.
    no_version = worker.client.post(
        url, json={"pair_id": pair["id"], "decision": "different", "confidence": "high"},
        headers=worker.headers,
    )  # fmt: skip
    assert no_version.status_code == 201
