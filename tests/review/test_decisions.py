"""The decision service: append-only answers, the newest wins, pages, progress."""

import pytest

from app.extensions import db
from app.models import Assignment, DecisionEvent, Project, User
from app.review.answers import decisions as svc


@pytest.fixture
def ctx(app, study):
    with app.app_context():
        yield (
            db.session.get(Assignment, study.mine),
            db.session.get(User, study.wes_id),
            study.pairs,
        )


def test_the_newest_event_is_the_answer_and_nothing_is_updated(ctx):
    assignment, wes, pairs = ctx
    first = svc.record_decision(assignment, pairs[0], "same", "low", by=wes)
    svc.record_decision(assignment, pairs[0], "different", "high", by=wes)
    svc.record_decision(assignment, pairs[1], "same", "medium", by=wes)
    db.session.commit()
    current = svc.current_decisions(assignment.id, pairs)
    assert {p: (e.decision, e.confidence) for p, e in current.items()} == {
        pairs[0]: ("different", "high"),
        pairs[1]: ("same", "medium"),
    }
    assert db.session.query(DecisionEvent).count() == 3
    assert svc.current_decisions(assignment.id, [pairs[1]]).keys() == {pairs[1]}
    first.decision = "same-ish"
    with pytest.raises(PermissionError):
        db.session.flush()


def test_progress_counts_decided_pairs_once(ctx):
    assignment, wes, pairs = ctx
    assert svc.progress(assignment.id) == (0, 6)
    for decision in ("same", "different"):
        svc.record_decision(assignment, pairs[2], decision, "low", by=wes)
    assert svc.progress(assignment.id) == (1, 6)
    assert svc.tally(assignment.id) == {"same": 0, "different": 1, "unsure": 0, "different-low": 1}


@pytest.mark.parametrize(
    ("decision", "confidence", "message"),
    [
        ("maybe", "high", "one of same, different, unsure"),
        ("same", None, "confidence is one of"),
        ("different", "very", "confidence is one of"),
        ("unsure", None, "does not allow"),
    ],
)
def test_invalid_answers_are_refused(ctx, decision, confidence, message):
    assignment, wes, pairs = ctx
    with pytest.raises(svc.DecisionError, match=message):
        svc.record_decision(assignment, pairs[0], decision, confidence, by=wes)


def test_unsure_when_the_project_allows_it(ctx):
    assignment, wes, pairs = ctx
    db.session.get(Project, assignment.project_id).allow_unsure = True
    with pytest.raises(svc.DecisionError, match="takes no confidence"):
        svc.record_decision(assignment, pairs[0], "unsure", "low", by=wes)
    svc.record_decision(assignment, pairs[0], "unsure", None, by=wes)
    assert svc.tally(assignment.id)["unsure"] == 1


def test_a_pair_outside_the_assignment_is_refused(ctx):
    assignment, wes, _ = ctx
    with pytest.raises(svc.NotInAssignment):
        svc.record_decision(assignment, 10_000, "same", "high", by=wes)


def test_pages_resume_and_submit(ctx):
    assignment, wes, pairs = ctx
    assert svc.page_pair_ids(assignment, 1) == pairs[:4]
    assert svc.page_pair_ids(assignment, 2) == pairs[4:]
    with pytest.raises(svc.NotInAssignment):
        svc.page_pair_ids(assignment, 3)
    assert svc.resume_page(assignment) == 1
    with pytest.raises(svc.PageIncomplete) as refused:
        svc.submit_page(assignment, 1)
    assert refused.value.unanswered == pairs[:4]
    for pair_id in pairs[:4]:
        svc.record_decision(assignment, pair_id, "same", "high", by=wes)
    assert svc.resume_page(assignment) == 2
    assert svc.submit_page(assignment, 1) == svc.PageSubmitted(1, 2, 4, 6)
    with pytest.raises(svc.DecisionError, match="not on page 1"):
        svc.submit_page(assignment, 1, shown=[pairs[0], pairs[5]])
    for pair_id in pairs[4:]:
        svc.record_decision(assignment, pair_id, "different", "low", by=wes)
    assert svc.submit_page(assignment, 2) == svc.PageSubmitted(2, None, 6, 6)
    assert svc.resume_page(assignment) == 2


def test_own_assignment(ctx, study):
    _, wes, _ = ctx
    assert svc.own_assignment(study.mine, wes).id == study.mine
    with pytest.raises(PermissionError):
        svc.own_assignment(study.theirs, wes)
    with pytest.raises(svc.NotInAssignment):
        svc.own_assignment(999, wes)
