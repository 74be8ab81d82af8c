"""Blocking, assignments, budgets, progress, agreement, conflicts and exports as services."""

from __future__ import annotations

import csv
import io

import pytest
from sqlalchemy import func, select

from app.extensions import db
from app.models import Assignment, BudgetChange, Pair, User
from app.projects.blocking.pairing import BlockingRefused, create_pairs, preview_blocking
from app.projects.conflicts.queue import conflict_queue, resolve_conflict
from app.projects.exports.service import ExportRefused, export_csv
from app.projects.progress.agreement import agreement, consensus
from app.projects.progress.summary import project_progress
from app.projects.staffing.assignments import AssignmentError
from app.projects.staffing.workers import assign_workers, change_budget, share
from tests.projects.conftest import decide, linked_project

LAST_NAME = [["last_name"]]


def test_agreement_against_a_hand_computed_example():
    # 10 pairs: 4 both same, 3 both different, 2 same/different, 1 different/same.
    labels = [("same", "same")] * 4 + [("different", "different")] * 3
    labels += [("same", "different")] * 2 + [("different", "same")]
    result = agreement(labels)
    # p_o = 7/10; p_e = (6·5 + 4·5)/100 = 0.5; κ = (0.7 − 0.5)/(1 − 0.5) = 0.4
    assert (result.pairs, result.agreed) == (10, 7)
    assert result.percent == pytest.approx(70.0)
    assert result.kappa == pytest.approx(0.4)
    assert agreement([]).kappa is None
    assert agreement([("same", "same")] * 3).kappa is None  # chance agreement is 1


@pytest.mark.parametrize(
    ("decisions", "resolution", "final"),
    [([], None, None), (["same"], None, "same"), (["same", "different"], None, None),
     (["same", "different"], "different", "different"), (["unsure"], None, None)],
)  # fmt: skip
def test_consensus(decisions, resolution, final):
    assert consensus(decisions, resolution) == final


@pytest.mark.parametrize(
    ("pairs", "workers", "coders", "sizes"),
    [(6, 2, 2, [6, 6]), (6, 3, 1, [2, 2, 2]), (7, 3, 2, [5, 5, 4]), (5, 2, 1, [3, 2])],
)  # fmt: skip
def test_share_splits_evenly(pairs, workers, coders, sizes):
    shares = share(list(range(pairs)), workers, coders)
    assert [len(s) for s in shares] == sizes
    for p in range(pairs):
        assert sum(p in s for s in shares) == coders


def test_blocking_preview_then_pairs_with_the_rule(app, people):
    with app.app_context():
        project = linked_project(people)
        preview = preview_blocking(project, [*LAST_NAME, [["dob", "year"]]])
        assert preview.rules == ["last_name exact", "dob year"]
        assert preview.total >= preview.per_rule[0] > 0
        made = create_pairs(project, [*LAST_NAME, [["dob", "year"]]])
        db.session.commit()
        rules = db.session.scalars(select(Pair.rule).where(Pair.project_id == project.id)).all()
        assert len(rules) == made == preview.total
        assert set(rules) <= {"last_name exact", "dob year"}


def test_blocking_refuses_bad_rules_and_too_many_pairs(app, people):
    with app.app_context():
        project = linked_project(people)
        with pytest.raises(BlockingRefused, match="unknown attribute"):
            preview_blocking(project, [["info1"]])  # sensitive: not in the records
        app.config["BLOCKING_MAX_PAIRS"] = 3
        with pytest.raises(BlockingRefused, match="more than the limit of 3"):
            create_pairs(project, [["sex"]])
        assert db.session.scalar(select(func.count(Pair.id))) == 0


def test_double_coding_progress_conflicts_and_exports(app, people):
    with app.app_context():
        project = linked_project(people)
        create_pairs(project, LAST_NAME)
        made = assign_workers(
            project, {"wes": 0.5, "wen": 0.4}, coders=2, start_partial=[], page_size=5
        )
        db.session.commit()
        assert project.page_size == 5
        wes, wen = made
        pair_ids = [ap.pair_id for ap in wes.pairs]
        assert pair_ids == [ap.pair_id for ap in wen.pairs]
        decide(wes, pair_ids[0], "same")
        decide(wen, pair_ids[0], "same", "medium")
        decide(wes, pair_ids[1], "same")
        decide(wes, pair_ids[1], "different")  # the newest answer counts
        decide(wen, pair_ids[1], "same")
        db.session.commit()

        progress = project_progress(project)
        assert [(w.worker, w.decided, w.pairs) for w in progress.workers] == [
            ("wes", 2, len(pair_ids)), ("wen", 2, len(pair_ids)),
        ]  # fmt: skip
        assert progress.agreement.pairs == 2 and progress.agreement.agreed == 1
        assert progress.conflicts == 1

        (conflict,) = conflict_queue(project)
        assert [a.decision for a in conflict.outcome.answers] == ["different", "same"]
        resolve_conflict(project, pair_ids[1], "same", "low", by=db.session.get(User, 1))
        db.session.commit()
        assert project_progress(project).conflicts == 0

        labels = list(csv.DictReader(io.StringIO(export_csv(project, "labels"))))
        assert len(labels) == 2 * len(pair_ids)
        assert {r["reviewer"] for r in labels} == {"wes", "wen"}
        undecided = [r for r in labels if r["decision"] == ""]
        assert len(undecided) == 2 * (len(pair_ids) - 2)
        by_pair = [labels[i : i + 2] for i in range(0, len(labels), 2)]  # two coders a pair
        agreed = [p for p in by_pair if [r["decision"] for r in p] == ["same", "same"]]
        disputed = [p for p in by_pair if {r["decision"] for r in p} == {"same", "different"}]
        assert len(agreed) == len(disputed) == 1
        finals = {(r["final_decision"], r["final_confidence"]) for r in agreed[0]}
        assert finals == {("same", "medium")}  # the less sure of the two agreeing coders
        finals = {(r["final_decision"], r["final_confidence"]) for r in disputed[0]}
        assert finals == {("same", "low")}  # the manager's resolution
        assert {r["final_decision"] for r in undecided} == {""}
        clusters = list(csv.DictReader(io.StringIO(export_csv(project, "clusters"))))
        n_records = sum(s.record_count for s in project.sources)
        assert len(clusters) == n_records
        assert len({c["cluster_id"] for c in clusters}) == n_records - 2
        linked = list(csv.reader(io.StringIO(export_csv(project, "linked"))))
        header = ["cluster_id", "linked_by", "info1", "info2", "info3", "info4", "info5"]
        assert linked[0] == header
        assert len(linked) == n_records + 1
        assert {row[1] for row in linked[1:]} == {"", "reviewers+manager"}  # one cluster
        assert not any("WILDING" in cell for row in linked for cell in row[2:3])
        with pytest.raises(ExportRefused, match="pair-file"):
            export_csv(project, "legacy")


def test_budget_changes_are_recorded_and_never_below_spent(app, people):
    with app.app_context():
        project = linked_project(people)
        create_pairs(project, LAST_NAME)
        (assignment,) = assign_workers(project, {"wes": 0.2})
        db.session.commit()
        manager = db.session.get(User, people["max"])
        change_budget(assignment, 0.3, by=manager)
        db.session.commit()
        assert db.session.get(Assignment, assignment.id).budget == 0.3
        assignment.kapr, assignment.kapr_exact = 0.25, "1/4"  # the exact one is compared
        db.session.commit()
        with pytest.raises(AssignmentError, match="spent"):
            change_budget(assignment, 0.1, by=manager)
        db.session.rollback()
        changes = db.session.scalars(select(BudgetChange)).all()
        assert [(c.budget_before, c.budget_after) for c in changes] == [(0.2, 0.3)]


def test_assignments_need_pairs_and_enough_workers(app, people):
    with app.app_context():
        project = linked_project(people)
        with pytest.raises(AssignmentError, match="no pairs"):
            assign_workers(project, {"wes": 0.2})
        create_pairs(project, LAST_NAME)
        with pytest.raises(AssignmentError, match="at least 2 workers"):
            assign_workers(project, {"wes": 0.2}, coders=2)
        with pytest.raises(AssignmentError, match="not workers: max"):
            assign_workers(project, {"max": 0.2})
