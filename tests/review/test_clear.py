"""Clearing an answer: one more append-only event, after which the pair is unanswered."""

from __future__ import annotations

import itertools

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from app.extensions import db
from app.models import CLEARED, Assignment, DecisionEvent, Project, User
from app.projects.progress.outcomes import outcomes
from app.review.answers import Summary, answer_summary
from app.review.answers import decisions as svc
from tests.factories import make_assignment, make_user


@pytest.fixture
def ctx(app, study):
    with app.app_context():
        yield (
            db.session.get(Assignment, study.mine),
            db.session.get(User, study.wes_id),
            study.pairs,
        )


def api(study, tail=""):
    return f"/api/v1/assignments/{study.mine}{tail}"


def test_clearing_appends_an_event_and_the_pair_is_unanswered(ctx):
    assignment, wes, pairs = ctx
    first = svc.record_decision(assignment, pairs[0], "same", "high", by=wes)
    svc.record_decision(assignment, pairs[1], "different", "low", by=wes)
    db.session.commit()
    assert svc.progress(assignment.id) == (2, 6)
    event = svc.clear_answer(assignment, pairs[0], by=wes)
    db.session.commit()
    assert (event.decision, event.confidence) == (CLEARED, None)
    assert svc.current_decisions(assignment.id).keys() == {pairs[1]}
    assert svc.progress(assignment.id) == (1, 6)
    assert svc.tally(assignment.id) == {"same": 0, "different": 1, "unsure": 0, "different-low": 1}
    assert svc.resume_page(assignment) == 1
    with pytest.raises(svc.PageIncomplete) as refused:
        svc.submit_page(assignment, 1)
    assert pairs[0] in refused.value.unanswered
    # The history is intact: the first answer is still there, unchanged and immutable.
    assert db.session.query(DecisionEvent).count() == 3
    assert (db.session.get(DecisionEvent, first.id).decision, first.confidence) == ("same", "high")
    event.decision = "same"
    with pytest.raises(PermissionError):
        db.session.flush()
    db.session.rollback()
    svc.record_decision(assignment, pairs[0], "different", "medium", by=wes)
    assert svc.current_decisions(assignment.id)[pairs[0]].decision == "different"
    assert svc.progress(assignment.id) == (2, 6)


def test_nothing_to_clear_is_refused(ctx):
    assignment, wes, pairs = ctx
    with pytest.raises(svc.DecisionError, match="no answer to clear"):
        svc.clear_answer(assignment, pairs[0], by=wes)
    svc.record_decision(assignment, pairs[0], "same", "high", by=wes)
    svc.clear_answer(assignment, pairs[0], by=wes)
    with pytest.raises(svc.DecisionError, match="no answer to clear"):
        svc.clear_answer(assignment, pairs[0], by=wes)
    with pytest.raises(svc.NotInAssignment):
        svc.clear_answer(assignment, 10_000, by=wes)
    assert db.session.query(DecisionEvent).count() == 2


def test_cleared_is_not_an_answer_a_worker_can_post(ctx):
    assignment, wes, pairs = ctx
    with pytest.raises(svc.DecisionError):
        svc.record_decision(assignment, pairs[0], CLEARED, None, by=wes)


def test_clear_over_the_api(wes, study, app):
    pair = study.pairs[0]
    body = {"pair_id": pair, "decision": "same", "confidence": "high"}
    assert wes.post(api(study, "/decisions"), json=body).status_code == 201
    response = wes.post(api(study, "/decisions/clear"), json={"pair_id": pair})
    assert response.status_code == 201
    cleared = response.get_json()
    assert cleared["pair_id"] == pair and cleared["cleared"] is True
    assert (cleared["decided"], cleared["total"], cleared["tally"]["same"]) == (0, 6, 0)
    listing = wes.get(api(study, "/decisions")).get_json()
    assert listing["decisions"] == {} and listing["decided"] == 0
    page = wes.get(f"/api/v1/assignments/{study.mine}?page=1").get_json()
    assert page["assignment"]["decided"] == 0
    assert all(p["decision"] is None for p in page["pairs"])
    again = wes.post(api(study, "/decisions/clear"), json={"pair_id": pair})
    assert again.status_code == 400
    assert again.get_json()["message"] == "this pair has no answer to clear"
    assert wes.post(api(study, "/decisions/clear"), json={"pair_id": 10_000}).status_code == 404
    assert wes.post(api(study, "/decisions/clear"), json={"pair_id": "1"}).status_code == 400
    theirs = f"/api/v1/assignments/{study.theirs}/decisions/clear"
    assert wes.post(theirs, json={"pair_id": pair}).status_code == 403
    with app.app_context():
        assert db.session.query(DecisionEvent).count() == 2


def test_clear_needs_the_csrf_token_in_a_browser_session(app, study, wes):
    with app.app_context():
        assignment = db.session.get(Assignment, study.mine)
        svc.record_decision(
            assignment, study.pairs[0], "same", "high", by=db.session.get(User, study.wes_id)
        )
        db.session.commit()
    app.config["WTF_CSRF_ENABLED"] = True  # the session cookie alone cannot clear an answer
    response = wes.post(api(study, "/decisions/clear"), json={"pair_id": study.pairs[0]})
    assert response.status_code == 400
    with app.app_context():
        assert db.session.query(DecisionEvent).count() == 1


ANSWERS = [("same", "high"), ("same", "low"), ("different", "medium"), ("unsure", None)]
FOLDS = itertools.count()
EVENTS = st.lists(st.tuples(st.integers(0, 2), st.sampled_from([*ANSWERS, CLEARED])), max_size=12)


@settings(
    max_examples=30, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(events=EVENTS)
def test_the_newest_decision_reader_equals_a_simple_fold(app, study, events):
    """Any sequence of answers and clears: every reader agrees with a dict fold."""
    with app.app_context():
        project = db.session.get(Project, study.project_id)
        project.allow_unsure = True
        wes = make_user(f"fold{next(FOLDS)}")  # a fresh worker and assignment per example
        assignment = make_assignment(project, wes, budget=0.5)
        pairs = [link.pair_id for link in assignment.pairs][:3]
        reference: dict[int, tuple[str, str | None]] = {}
        for index, event in events:
            pair = pairs[index]
            if event == CLEARED:
                if pair in reference:
                    svc.clear_answer(assignment, pair, by=wes)
                    del reference[pair]
                else:
                    with pytest.raises(svc.DecisionError):
                        svc.clear_answer(assignment, pair, by=wes)
            else:
                svc.record_decision(assignment, pair, *event, by=wes)
                reference[pair] = event
        db.session.commit()
        current = svc.current_decisions(assignment.id)
        assert {p: (e.decision, e.confidence) for p, e in current.items()} == reference
        assert svc.progress(assignment.id) == (len(reference), len(assignment.pairs))
        tally = svc.tally(assignment.id)
        for decision in ("same", "different", "unsure"):
            assert tally[decision] == sum(d == decision for d, _ in reference.values())
        # the request path's one-statement summary agrees with progress and tally
        assert answer_summary(db.session.connection(), assignment.id) == Summary(
            len(reference), len(assignment.pairs), tally
        )
        answers = {
            pair_id: (a.decision, a.confidence)
            for pair_id, outcome in outcomes(project.id).items()
            for a in outcome.answers
            if a.assignment_id == assignment.id and a.decision is not None
        }
        assert answers == reference
