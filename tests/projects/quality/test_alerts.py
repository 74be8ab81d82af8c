"""The early alert on a reviewer who errs on their checks, and the manager's actions on it."""

from __future__ import annotations

from sqlalchemy import select

from app.extensions import db
from app.models import AlertAction, Assignment, AssignmentPair, QualityCheck, ReviewerAlert
from tests.projects.quality.conftest import voters

H = lambda token: {"Authorization": f"Bearer {token}"}  # noqa: E731
FLIP = {"same": "different", "different": "same"}


def _setup(app, client, share=0.4):
    project_id, manager, tokens = voters(app, workers=("ann", "bob", "cy"))
    body = {"worker": "ann", "budget": 0.3, "checks": {"share": share}}
    made = client.post(f"/api/v1/projects/{project_id}/assignments", json=body, headers=H(manager))
    assert made.status_code == 201
    return project_id, manager, tokens, made.get_json()["id"]


def _order(app, assignment_id):
    """(handle, expected answer or None) of each pair, in the assignment's order."""
    with app.app_context():
        checks = dict(
            db.session.execute(
                select(QualityCheck.pair_id, QualityCheck.expected).where(
                    QualityCheck.assignment_id == assignment_id
                )
            ).all()
        )
        links = db.session.scalars(
            select(AssignmentPair)
            .where(AssignmentPair.assignment_id == assignment_id)
            .order_by(AssignmentPair.position)
        ).all()
        return [(link.handle, checks.get(link.pair_id)) for link in links]


def _answer(client, token, assignment_id, handle, decision):
    body = {"pair_id": handle, "decision": decision, "confidence": "high"}
    return client.post(
        f"/api/v1/assignments/{assignment_id}/decisions", json=body, headers=H(token)
    )


def test_a_reviewer_wrong_on_their_checks_is_flagged_early(app, client):
    project_id, manager, tokens, ann = _setup(app, client)
    decided = 0
    for handle, expected in _order(app, ann):
        answer = FLIP[expected] if expected else "same"
        assert _answer(client, tokens["ann"], ann, handle, answer).status_code == 201
        decided += 1
        with app.app_context():
            raised = db.session.scalars(select(ReviewerAlert)).all()
        if raised:
            break
    assert len(raised) == 1
    alert = raised[0]
    assert alert.after_decisions == decided and alert.wrong == alert.checks == 3
    reviewers = client.get(f"/api/v1/projects/{project_id}/reviewers", headers=H(manager))
    ann_row = next(r for r in reviewers.get_json()["reviewers"] if r["worker"] == "ann")
    assert ann_row["flagged"] and ann_row["flagged_after"] == decided
    assert (ann_row["checks_answered"], ann_row["checks_wrong"]) == (3, 3)
    listed = client.get(f"/api/v1/projects/{project_id}/alerts", headers=H(manager)).get_json()
    assert [a["state"] for a in listed["alerts"]] == ["open"]
    # more wrong answers raise no second alert while this one is open
    for handle, expected in _order(app, ann)[decided : decided + 10]:
        _answer(client, tokens["ann"], ann, handle, FLIP[expected] if expected else "same")
    with app.app_context():
        assert db.session.query(ReviewerAlert).count() == 1


def test_a_careful_reviewer_is_not_flagged(app, client):
    project_id, manager, tokens, ann = _setup(app, client)
    for handle, expected in _order(app, ann):
        assert _answer(client, tokens["ann"], ann, handle, expected or "same").status_code == 201
    with app.app_context():
        assert db.session.query(ReviewerAlert).count() == 0
    reviewers = client.get(f"/api/v1/projects/{project_id}/reviewers", headers=H(manager))
    row = reviewers.get_json()["reviewers"][0]
    assert row["flagged"] is False and row["flagged_after"] is None
    assert row["checks_wrong"] == 0 and row["accuracy"]["value"] == 1.0


def _flag(app, client, tokens, ann):
    for handle, expected in _order(app, ann):
        _answer(client, tokens["ann"], ann, handle, FLIP[expected] if expected else "same")
        with app.app_context():
            alert = db.session.scalar(select(ReviewerAlert.id))
        if alert:
            return alert
    raise AssertionError("never flagged")


def test_pause_resume_reassign_and_dismiss_are_recorded(app, client):
    project_id, manager, tokens, ann = _setup(app, client)
    alert = _flag(app, client, tokens, ann)
    url = f"/api/v1/projects/{project_id}/alerts/{alert}"

    def act(**body):
        return client.post(url, json=body, headers=H(manager))

    assert act(action="pause").get_json()["state"] == "paused"
    # the last real pair (a check may be last, and the alert may come after checks only:
    # then no real pair would be decided to send on)
    handle = next(h for h, expected in reversed(_order(app, ann)) if expected is None)
    refused = _answer(client, tokens["ann"], ann, handle, "same")
    assert refused.status_code == 409 and refused.get_json()["error"] == "paused"
    reveal = {"pair_id": handle, "row": 0, "attribute": "last_name"}
    blocked = client.post(
        f"/api/v1/assignments/{ann}/reveal", json=reveal, headers=H(tokens["ann"])
    )
    assert blocked.status_code == 409 and blocked.get_json()["error"] == "paused"
    assert act(action="pause").status_code == 400  # paused already
    assert act(action="resume").get_json()["state"] == "resumed"
    assert _answer(client, tokens["ann"], ann, handle, "same").status_code == 201
    # the decided real pairs go to bob, masked, in a new assignment of the round
    sent = act(action="reassign", to="bob")
    assert sent.status_code == 200 and sent.get_json()["state"] == "reassigned", sent.get_json()
    with app.app_context():
        bob = db.session.scalar(
            select(Assignment).where(
                Assignment.worker_id != db.session.get(Assignment, ann).worker_id
            )
        )
        decided_real = db.session.scalar(
            select(db.func.count())
            .select_from(AssignmentPair)
            .where(AssignmentPair.assignment_id == bob.id)
        )
        action = db.session.scalars(
            select(AlertAction).where(AlertAction.action == "reassign")
        ).one()
        assert action.to_assignment_id == bob.id and action.pairs == decided_real > 0
    assert act(action="reassign", to="ann").status_code == 400  # not the reviewer flagged
    assert act(action="dismiss").get_json()["state"] == "dismissed"
    assert act(action="pause").status_code == 400  # dismissed: nothing more to do
    with app.app_context():
        actions = db.session.scalars(select(AlertAction).order_by(AlertAction.id)).all()
        assert [a.action for a in actions] == ["pause", "resume", "reassign", "dismiss"]
        assert all(a.by and a.at for a in actions)
    row = client.get(f"/api/v1/projects/{project_id}/reviewers", headers=H(manager)).get_json()
    assert next(r for r in row["reviewers"] if r["worker"] == "ann")["flagged"] is False


def test_only_the_owner_acts_and_a_worker_sees_nothing(app, client):
    project_id, manager, tokens, ann = _setup(app, client)
    alert = _flag(app, client, tokens, ann)
    for path in ("reviewers", "alerts", "adjudications"):
        url = f"/api/v1/projects/{project_id}/{path}"
        assert client.get(url, headers=H(tokens["ann"])).status_code == 403
    url = f"/api/v1/projects/{project_id}/alerts/{alert}"
    assert client.post(url, json={"action": "dismiss"}, headers=H(tokens["bob"])).status_code == 403
    assert client.post(url, json={"action": "explode"}, headers=H(manager)).status_code == 400
