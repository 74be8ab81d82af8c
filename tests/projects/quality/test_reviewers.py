"""Each reviewer's figures against independent implementations, double coding with checks,
adjudication's provenance, the break reminder, and the quality page."""

from __future__ import annotations

import datetime as dt

import numpy as np
import pytest
from sklearn.metrics import cohen_kappa_score
from sqlalchemy import select
from statsmodels.stats.inter_rater import aggregate_raters
from statsmodels.stats.inter_rater import fleiss_kappa as sm_fleiss

from app.extensions import db
from app.models import (
    AnswerState,
    Assignment,
    AssignmentPair,
    DecisionEvent,
    Project,
    QualityCheck,
    User,
)
from app.projects.conflicts.queue import resolve_conflict
from app.projects.quality import CheckSpec
from app.projects.staffing import assign_workers
from tests.projects.quality.conftest import voters

H = lambda token: {"Authorization": f"Bearer {token}"}  # noqa: E731


@pytest.fixture
def coded(app, client):
    """Ann, Bob and Cy code every pair twice, with 10 % synthetic checks shared as the real
    pairs are; each answers at random with their own error rate."""
    project_id, manager, tokens = voters(app, workers=("ann", "bob", "cy"), n=120)
    with app.app_context():
        project = db.session.get(Project, project_id)
        made = assign_workers(
            project,
            {"ann": 0.5, "bob": 0.5, "cy": 0.5},
            coders=2,
            checks=CheckSpec(0.1, "synthetic"),
        )
        db.session.commit()
        ids = {a.worker.username: a.id for a in made}
        expected = dict(
            db.session.execute(select(QualityCheck.pair_id, QualityCheck.expected)).all()
        )
        names = {
            a: [(link.handle, link.pair_id) for link in db.session.scalars(
                select(AssignmentPair).where(AssignmentPair.assignment_id == i)
                .order_by(AssignmentPair.position))]
            for a, i in ids.items()
        }  # fmt: skip
    rng = np.random.default_rng(3)
    rates = {"ann": 0.05, "bob": 0.3, "cy": 0.5}
    for worker, listed in names.items():
        checks_seen = 0
        for handle, pair in listed:
            truth = expected.get(pair, "same" if rng.random() < 0.5 else "different")
            wrong = rng.random() < rates[worker]
            if pair in expected:  # checks wrong at exactly the worker's rate, in turn: which
                # pairs are checks is the server's random draw, and cy right on all her few
                # checks by chance (1 run in ~40) would leave her accuracy above ann's
                checks_seen += 1
                wrong = int(checks_seen * rates[worker]) > int((checks_seen - 1) * rates[worker])
            answer = {"same": "different", "different": "same"}[truth] if wrong else truth
            body = {"pair_id": handle, "decision": answer, "confidence": "high"}
            url = f"/api/v1/assignments/{ids[worker]}/decisions"
            assert client.post(url, json=body, headers=H(tokens[worker])).status_code == 201
    return project_id, manager, ids, expected


def _answers(app, assignment_id):
    with app.app_context():
        rows = db.session.execute(
            select(AnswerState.pair_id, AnswerState.decision).where(
                AnswerState.assignment_id == assignment_id
            )
        )
        return dict(rows.all())


def test_kappa_fleiss_and_accuracy_equal_independent_implementations(app, client, coded):
    project_id, manager, ids, expected = coded
    body = client.get(f"/api/v1/projects/{project_id}/reviewers", headers=H(manager)).get_json()
    rows = {r["worker"]: r for r in body["reviewers"]}
    answers = {w: _answers(app, i) for w, i in ids.items()}
    for one in ids:
        for other in ids:
            if one == other:
                continue
            both = sorted(answers[one].keys() & answers[other].keys())
            theirs = cohen_kappa_score(
                [answers[one][p] for p in both], [answers[other][p] for p in both]
            )
            assert rows[one]["kappa"][other] == pytest.approx(theirs, abs=1e-12)
            differ = sum(answers[one][p] != answers[other][p] for p in both) / len(both)
            assert rows[one]["discordance_with"][other] == pytest.approx(differ)
        mine = {p: a for p, a in answers[one].items() if p in expected}
        wrong = sum(a != expected[p] for p, a in mine.items())
        assert (rows[one]["checks_answered"], rows[one]["checks_wrong"]) == (len(mine), wrong)
    # every pair is coded by two: Fleiss' kappa over them, as statsmodels has it
    by_pair: dict[int, list[str]] = {}
    for mine in answers.values():
        for pair, answer in mine.items():
            by_pair.setdefault(pair, []).append(answer)
    items = [given for given in by_pair.values() if len(given) == 2]
    table, _ = aggregate_raters(np.array(items, dtype=object))
    agreement = body["agreement"]
    assert agreement["measure"] == "Fleiss' kappa" and agreement["coders_per_pair"] == 2
    assert agreement["value"] == pytest.approx(sm_fleiss(table, method="fleiss"), abs=1e-12)
    # the checks are double-coded too: each is in exactly two assignments
    with app.app_context():
        holders = db.session.execute(
            select(QualityCheck.pair_id, db.func.count()).group_by(QualityCheck.pair_id)
        ).all()
    assert holders and all(n == 2 for _p, n in holders)
    # the quality page and its downloads
    page = client.get(f"/projects/{project_id}/quality", headers=H(manager))
    html = page.get_data(as_text=True)
    assert page.status_code == 200 and "Fleiss" in html and 'id="kappa"' in html
    for name in ("reviewers", "accuracy", "discordance", "pace", "characters"):
        got = client.get(f"/projects/{project_id}/quality/{name}.csv", headers=H(manager))
        assert got.status_code == 200 and got.mimetype == "text/csv", name
    progress = client.get(f"/projects/{project_id}/progress", headers=H(manager))
    assert 'id="alerts"' in progress.get_data(as_text=True)
    # the careless reviewer's accuracy interval sits below the careful one's
    assert rows["cy"]["accuracy"]["high"] < rows["ann"]["accuracy"]["value"] or (
        rows["cy"]["accuracy"]["value"] < rows["ann"]["accuracy"]["value"]
    )


def test_adjudications_keep_their_provenance_and_score_the_reviewers(app, client, coded):
    project_id, manager, ids, _expected = coded
    ann, bob = _answers(app, ids["ann"]), _answers(app, ids["bob"])
    with app.app_context():
        project = db.session.get(Project, project_id)
        max_ = db.session.scalar(select(User).where(User.username == "max"))
        assigned = select(AssignmentPair.pair_id).join(
            Assignment, Assignment.id == AssignmentPair.assignment_id
        )
        assigned = set(db.session.scalars(assigned.where(Assignment.project_id == project_id)))
        disputed = sorted(p for p in ann.keys() & bob.keys() if ann[p] != bob[p] and p in assigned)
        real = [
            p
            for p in disputed
            if db.session.scalar(select(QualityCheck.id).where(QualityCheck.pair_id == p)) is None
        ]
        assert real
        for pair in real[:3]:
            resolve_conflict(project, pair, ann[pair], "high", by=max_)
        db.session.commit()
    body = client.get(f"/api/v1/projects/{project_id}/adjudications", headers=H(manager)).get_json()
    settled = {a["pair_id"]: a for a in body["adjudications"]}
    for pair in real[:3]:
        assert settled[pair]["answer"] == ann[pair] and settled[pair]["by"] == "max"
        assert settled[pair]["role"] == "manager" and settled[pair]["at"]
    rows = {
        r["worker"]: r
        for r in client.get(
            f"/api/v1/projects/{project_id}/reviewers", headers=H(manager)
        ).get_json()["reviewers"]
    }
    assert rows["ann"]["adjudicated"] >= 3 and rows["ann"]["discordance_adjudicated"] == 0.0
    assert rows["bob"]["discordance_adjudicated"] == 1.0
    csv = client.get(f"/projects/{project_id}/quality/adjudications.csv", headers=H(manager))
    assert csv.status_code == 200 and "manager" in csv.get_data(as_text=True)


def test_breaks_remind_and_mark_the_decisions_past_them(app, client):
    project_id, manager, tokens = voters(app)
    settings = f"/api/v1/projects/{project_id}/settings"
    changed = client.post(settings, json={"break_decisions": 3}, headers=H(manager)).get_json()
    assert (changed["break_decisions"], changed["break_minutes"]) == (3, None)
    assert changed["alert_error_rate"] == 0.2
    refused = client.post(settings, json={"break_minutes": 0}, headers=H(manager))
    assert refused.status_code == 400
    made = client.post(
        f"/api/v1/projects/{project_id}/assignments", json={"worker": "ann"}, headers=H(manager)
    ).get_json()
    url = f"/api/v1/assignments/{made['id']}"
    pairs = client.get(url, headers=H(tokens["ann"])).get_json()["pairs"]
    due = []
    for pair in pairs[:5]:
        body = {"pair_id": pair["id"], "decision": "same", "confidence": "low"}
        due.append(
            client.post(f"{url}/decisions", json=body, headers=H(tokens["ann"])).get_json()[
                "break"
            ]["due"]
        )
    assert due == [False, False, False, True, True]
    assert client.get(url, headers=H(tokens["ann"])).get_json()["assignment"]["break"]["due"]
    with app.app_context():
        marks = db.session.scalars(
            select(DecisionEvent.past_break).order_by(DecisionEvent.id)
        ).all()
        assert marks == [False, False, False, True, True]
        # a pause of the gap's length starts a new session
        events = db.session.scalars(select(DecisionEvent)).all()
        assert all(e.at for e in events)
    reviewers = client.get(
        f"/api/v1/projects/{project_id}/reviewers", headers=H(manager)
    ).get_json()
    assert reviewers["reviewers"][0]["past_break"] == 2


def test_a_session_ends_at_a_long_pause():
    from app.review.breaks import is_due, session_of

    now = dt.datetime(2026, 1, 1, 12, tzinfo=dt.UTC)
    gap = dt.timedelta(minutes=10)
    times = [now - dt.timedelta(minutes=m) for m in (1, 2, 3, 30, 31)]
    start, count = session_of(times, now, gap)
    assert (start, count) == (now - dt.timedelta(minutes=3), 3)
    assert is_due(start, count, now, None, 3) and not is_due(start, count, now, None, 4)
    assert is_due(start, count, now, 3, None) and not is_due(start, count, now, 4, None)
    assert session_of([], now, gap) == (now, 0)
