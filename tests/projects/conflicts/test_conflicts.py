"""The conflicts queue under both policies: manager decides, or a third reviewer then manager."""

from __future__ import annotations

import pytest
from sqlalchemy import func, select

from app.extensions import db
from app.models import Assignment, ConflictReferral, ConflictResolution, Pair, User
from app.projects.blocking.pairing import create_pairs
from app.projects.conflicts.queue import (
    ConflictError,
    conflict_queue,
    open_for_resolution,
    refer_conflict,
    resolve_conflict,
    resolver_assignment,
    reveal_for_resolution,
    set_conflict_policy,
)
from app.projects.progress.agreement import consensus
from app.projects.progress.outcomes import outcomes
from app.projects.progress.summary import project_progress
from app.projects.staffing.workers import assign_workers
from app.review.reveal.refusals import AccountChanged
from app.review.services import BudgetExceeded
from tests.factories import PASSWORD, make_user
from tests.projects.conftest import decide, linked_project


@pytest.mark.parametrize(
    ("decisions", "final"),
    [(["same", "different", "same"], "same"), (["same", "different", "different"], "different"),
     (["same", "different", "unsure"], None), (["same", "different"], None),
     (["unsure", "unsure", "same"], None)],
)  # fmt: skip
def test_majority_of_three(decisions, final):
    assert consensus(decisions) == final


def disagreeing(people, conflicts=2):
    """A double-coded project (wes, wen) with ``conflicts`` pairs answered differently."""
    project = linked_project(people)
    create_pairs(project, [["last_name"]])
    wes, wen = assign_workers(project, {"wes": 0.5, "wen": 0.5}, coders=2)
    pair_ids = [link.pair_id for link in wes.pairs][:conflicts]
    for pair_id in pair_ids:
        decide(wes, pair_id, "same")
        decide(wen, pair_id, "different")
    db.session.commit()
    return project, pair_ids, db.session.get(User, people["max"])


def test_manager_policy_manager_decides_and_reveals_within_own_budget(app, people):
    with app.app_context():
        project, (pair_id, other), manager = disagreeing(people)
        (item, _) = conflict_queue(project)
        assert (item.state, item.can_resolve, item.can_refer) == ("open", True, False)
        assert [(a.reviewer, a.decision) for a in item.outcome.answers] == [
            ("wes", "same"), ("wen", "different"),
        ]  # fmt: skip
        with pytest.raises(ConflictError, match="cannot be referred"):
            refer_conflict(project, pair_id, make_user("wil"), 0.2, by=manager)
        db.session.rollback()

        result = reveal_for_resolution(project, pair_id, 0, "last_name", by=manager)
        db.session.commit()
        resolver = db.session.get(Assignment, result.assignment.id)
        assert resolver.resolver and resolver.worker_id == manager.id
        assert resolver.budget == project.resolver_budget == 0.05
        assert 0 < resolver.kapr <= resolver.budget
        assert [link.pair_id for link in resolver.pairs] == [pair_id]
        # The resolver gives no answers and is not a reviewer in progress or exports.
        assert "max" not in {a.reviewer for a in outcomes(project.id)[pair_id].answers}
        assert [w.worker for w in project_progress(project).workers] == ["wes", "wen"]
        # The same assignment grows with the next conflict; its budget is the limit.
        assert open_for_resolution(project, other, manager).id == resolver.id
        with pytest.raises(BudgetExceeded):
            for attribute in ["first_name", "last_name", "dob", "voter_reg_num"] * 3:
                for row in (0, 1):
                    reveal_for_resolution(project, other, row, attribute, by=manager)
                    db.session.commit()
        db.session.rollback()
        assert db.session.get(Assignment, resolver.id).kapr <= 0.05

        resolve_conflict(project, pair_id, "different", "low", by=manager)
        db.session.commit()
        assert outcomes(project.id)[pair_id].final == "different"
        assert project_progress(project).conflicts == 1
        with pytest.raises(ConflictError, match="not a conflict"):
            open_for_resolution(project, 10**6, manager)


@pytest.mark.parametrize(("role", "active", "refusal"), [
    ("worker", True, "no longer a manager or admin's"), ("manager", False, "no longer works"),
])  # fmt: skip
def test_a_resolver_demoted_or_deactivated_reveals_nothing_more(app, people, role, active, refusal):
    """The resolver assignment is a manager's: once its holder is a worker or is deactivated,
    its next reveal is refused with nothing charged (issue 42.5, as for a worker's)."""
    with app.app_context():
        project, (pair_id, _), manager = disagreeing(people)
        reveal_for_resolution(project, pair_id, 0, "last_name", by=manager)
        db.session.commit()
        kapr = resolver_assignment(project, manager).kapr
        manager.role, manager.active = role, active
        db.session.commit()
        with pytest.raises(AccountChanged, match=refusal):
            reveal_for_resolution(project, pair_id, 1, "last_name", by=manager)
        db.session.rollback()
        assert resolver_assignment(project, manager).kapr == kapr


def test_reviewer_policy_third_reviewer_majority_then_manager_on_a_tie(app, people):
    with app.app_context():
        project, (first, second), manager = disagreeing(people)
        wil, wes = make_user("wil"), db.session.get(User, people["wes"])
        set_conflict_policy(project, "reviewer", 0.1, by=manager)
        db.session.commit()
        with pytest.raises(ConflictError, match="refer it to an additional reviewer first"):
            resolve_conflict(project, first, "same", "high", by=manager)
        with pytest.raises(ConflictError, match="open"):
            open_for_resolution(project, first, manager)  # nothing to decide yet
        with pytest.raises(ConflictError, match="reviews this pair already"):
            refer_conflict(project, first, wes, None, by=manager)
        with pytest.raises(ConflictError, match="give a budget"):
            refer_conflict(project, first, wil, None, by=manager)
        db.session.rollback()

        refer_conflict(project, first, wil, 0.3, by=manager)
        db.session.commit()
        third = db.session.scalar(select(Assignment).where(Assignment.worker_id == wil.id))
        assert third.budget == 0.3 and [link.pair_id for link in third.pairs] == [first]
        assert third.chars_total > 0
        item = conflict_queue(project)[0]
        assert (item.pair_id, item.state, item.referred_to) == (first, "referred", "wil")
        with pytest.raises(ConflictError, match="waits for wil"):
            resolve_conflict(project, first, "same", "high", by=manager)

        decide(third, first, "same")  # two of three say same
        db.session.commit()
        assert outcomes(project.id)[first].final == "same"
        assert {i.pair_id: i.state for i in conflict_queue(project)}[first] == "settled"
        with pytest.raises(ConflictError, match="majority has settled it"):
            resolve_conflict(project, first, "different", "high", by=manager)

        refer_conflict(project, second, wil, None, by=manager)  # added to wil's assignment
        db.session.commit()
        db.session.refresh(third)
        assert [(link.pair_id, link.position) for link in third.pairs] == [(first, 0), (second, 1)]
        assert db.session.scalar(select(ConflictReferral.id).where(
            ConflictReferral.pair_id == second)) is not None  # fmt: skip
        decide(third, second, "unsure")  # still a tie: the manager decides
        db.session.commit()
        (item,) = [i for i in conflict_queue(project) if i.pair_id == second]
        assert item.state == "tie" and item.can_resolve
        assigned = open_for_resolution(project, second, manager)
        assert assigned.resolver and assigned.budget == 0.1
        resolve_conflict(project, second, "different", "medium", by=manager)
        db.session.commit()
        assert outcomes(project.id)[second].final == "different"
        assert project_progress(project).conflicts == 0


def test_policy_changes_are_checked_and_move_the_resolver_budget(app, people):
    with app.app_context():
        project, (pair_id, _), manager = disagreeing(people)
        with pytest.raises(ConflictError, match="'manager' or 'reviewer'"):
            set_conflict_policy(project, "vote", 0.1, by=manager)
        with pytest.raises(ConflictError, match="from 0 to 1"):
            set_conflict_policy(project, "manager", 2, by=manager)
        db.session.rollback()
        resolver = open_for_resolution(project, pair_id, manager)
        db.session.commit()
        set_conflict_policy(project, "manager", 0.2, by=manager)
        db.session.commit()
        assert db.session.get(Assignment, resolver.id).budget == 0.2


def test_conflicts_page_refers_opens_reveals_and_resolves(app, client, people):
    with app.app_context():
        project, (pair_id, _), _manager = disagreeing(people)
        make_user("wil")
        project_id = project.id
    client.post("/login", data={"username": "max", "password": PASSWORD})
    base = f"/projects/{project_id}/conflicts"
    page = client.get(base)
    assert page.status_code == 200 and b"open" in page.data and b"wes: same" in page.data
    with app.app_context():
        pair = db.session.get(Pair, pair_id)
        ids = f"(A {pair.record_a.external_id} × B {pair.record_b.external_id})"
    text = page.get_data(as_text=True)
    assert f'<th scope="row" class="pair-title">Pair {pair_id} {ids}</th>' in text
    assert '<td class="state">open</td>' in text
    assert client.post(f"{base}/{pair_id}/open").status_code == 302
    page = client.get(base)
    assert b"resolver-meter" in page.data and b"Reveal (+" in page.data
    client.post(f"{base}/{pair_id}/reveal", data={"row": "0", "attribute": "last_name"})
    client.post(f"{base}/policy", data={"policy": "reviewer", "resolver_budget": "5"})  # percent
    refused = client.post(f"{base}/{pair_id}/resolve", data={"decision": "same"})
    assert b"refer it" in client.get(refused.headers["Location"]).data
    client.post(f"{base}/{pair_id}/refer", data={"worker": "wil", "budget": "20"})
    assert b"referred to wil" in client.get(base).data
    with app.app_context():
        spent = db.session.scalar(select(Assignment.kapr).where(Assignment.resolver))
        assert 0 < spent <= 0.05


def test_conflicts_over_json(app, client, people):
    with app.app_context():
        project, (pair_id, _), _manager = disagreeing(people)
        project_id = project.id
    client.post("/login", data={"username": "max", "password": PASSWORD})
    base = f"/api/v1/projects/{project_id}/conflicts"
    listed = client.get(base).get_json()
    assert listed["policy"] == "manager" and listed["conflicts"][0]["state"] == "open"
    with app.app_context():
        pair = db.session.get(Pair, pair_id)
        ids = [pair.record_a.external_id, pair.record_b.external_id]
    first = next(c for c in listed["conflicts"] if c["pair_id"] == pair_id)
    assert first["records"] == [{"source": "A", "id": ids[0]}, {"source": "B", "id": ids[1]}]
    revealed = client.post(f"{base}/{pair_id}/reveal", json={"row": 0, "attribute": "last_name"})
    assert revealed.status_code == 200 and 0 < revealed.get_json()["assignment"]["kapr"] <= 0.05
    bad = client.post(f"{base}/policy", json={"policy": "vote"})
    assert bad.status_code == 400 and "'manager' or 'reviewer'" in bad.get_json()["message"]
    done = client.post(f"{base}/{pair_id}/resolve", json={"decision": "same", "confidence": "low"})
    assert done.status_code == 200
    assert client.get(base).get_json()["conflicts"][-1]["final"] == "same"


def test_the_queue_preselects_no_answer_and_an_empty_one_settles_nothing(app, client, people):
    """No conflict is one click from "same / high": the manager chooses the answer."""
    with app.app_context():
        project, (pair_id, _), _ = disagreeing(people)
        project_id = project.id
    client.post("/login", data={"username": "max", "password": PASSWORD})
    page = client.get(f"/projects/{project_id}/conflicts").get_data(as_text=True)
    row = page.split(f'id="conflict-{pair_id}"', 1)[1].split("</tbody>", 1)[0]
    assert '<option value="" selected>choose: same or different</option>' in row
    assert '<option value="" selected>choose a confidence</option>' in row
    assert row.count("required") >= 2 and "selected>same" not in row
    done = client.post(f"/projects/{project_id}/conflicts/{pair_id}/resolve",
                       data={"decision": "", "confidence": ""}, follow_redirects=True)  # fmt: skip
    assert "Not done: the decision is &#39;same&#39; or &#39;different&#39;" in done.get_data(
        as_text=True
    )
    with app.app_context():
        assert db.session.scalar(select(func.count(ConflictResolution.id))) == 0
