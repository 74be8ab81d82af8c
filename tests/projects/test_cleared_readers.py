"""Every reader of "the newest decision of a pair" sees a cleared answer as no answer.

Each reader's output is taken before some answers, after them (it must change, or the check
could not fail), and after clearing them: it must be exactly the output from before.
"""

from __future__ import annotations

import csv
import io

import pytest

from app.extensions import db
from app.models import Assignment, Project, ProjectKind, User
from app.projects.blocking.pairing import create_pairs
from app.projects.conflicts.queue import conflict_queue
from app.projects.exports.service import export_csv
from app.projects.progress.outcomes import outcomes
from app.projects.progress.summary import project_progress
from app.projects.staffing.workers import assign_workers
from app.review.answers import clear_answer, current_decisions, progress, record_decision, tally
from tests.projects.conftest import linked_project
from tests.projects.importing.test_import_service import import_pairfile


def _worker_view(assignment: Assignment):
    return (
        progress(assignment.id),
        tally(assignment.id),
        sorted(current_decisions(assignment.id)),
    )


def _readers(project: Project, wes: Assignment, wen: Assignment, truth: dict[int, bool]):
    from app.analytics.utility import risk_utility

    kinds = ["labels", "splink", "splink_matches", "recordlinkage", "clusters", "linked"]
    if project.kind == ProjectKind.PAIRFILE:
        kinds.append("legacy")
    views = {f"export:{kind}": export_csv(project, kind) for kind in kinds}
    # When an answer was given is not what is compared: drop the labels' decided_at.
    labels = list(csv.reader(io.StringIO(views["export:labels"])))
    at = labels[0].index("decided_at")
    views["export:labels"] = [row[:at] + row[at + 1 :] for row in labels]
    views["outcomes"] = {
        p: (o.decided, o.final, o.conflict, o.open, o.confidence)
        for p, o in outcomes(project.id).items()
    }
    views["progress"] = project_progress(project)
    views["conflicts"] = [(c.pair_id, c.state, c.outcome.decided) for c in conflict_queue(project)]
    views["utility"] = [r.as_dict() for r in risk_utility(project, truth)]
    views["worker wes"] = _worker_view(wes)
    views["worker wen"] = _worker_view(wen)
    return views


def _link(people):
    project = linked_project(people)
    create_pairs(project, [["last_name"]])
    return project


def _pairfile(people):
    return import_pairfile(people)[0]


@pytest.mark.parametrize("build", [_link, _pairfile], ids=["link", "pairfile"])
def test_a_cleared_answer_is_unanswered_for_every_reader(app, people, build):
    with app.app_context():
        project = build(people)
        wes, wen = assign_workers(project, {"wes": 0.5, "wen": 0.5}, coders=2, start_partial=[])
        db.session.commit()
        by_wes = db.session.get(User, people["wes"])
        by_wen = db.session.get(User, people["wen"])
        pairs = [ap.pair_id for ap in wes.pairs]
        assert {ap.pair_id for ap in wen.pairs} >= set(pairs[:4])
        truth = {p: i % 2 == 0 for i, p in enumerate(pairs)}
        # Kept throughout: an agreed pair and a single answer.
        for assignment, by in ((wes, by_wes), (wen, by_wen)):
            record_decision(assignment, pairs[0], "same", "high", by=by)
        record_decision(wes, pairs[3], "different", "low", by=by_wes)
        db.session.commit()
        before = _readers(project, wes, wen, truth)

        # Then: both agree on pair 1 (a link), they disagree on pair 2 (a conflict), and
        # wen changes her mind on pair 0 (the agreed link becomes a conflict).
        record_decision(wes, pairs[1], "same", "medium", by=by_wes)
        record_decision(wen, pairs[1], "same", "high", by=by_wen)
        record_decision(wes, pairs[2], "same", "high", by=by_wes)
        record_decision(wen, pairs[2], "different", "high", by=by_wen)
        record_decision(wen, pairs[0], "different", "low", by=by_wen)
        db.session.commit()
        during = _readers(project, wes, wen, truth)
        changed = {name for name in before if during[name] != before[name]}
        assert changed == set(before), f"unchanged by the answers: {set(before) - changed}"

        # Clear them all: pairs 1 and 2 are unanswered again for both; pair 0 is cleared for
        # wen, so it is wes's answer alone (no longer the earlier agreement).
        for assignment, by in ((wes, by_wes), (wen, by_wen)):
            clear_answer(assignment, pairs[1], by=by)
            clear_answer(assignment, pairs[2], by=by)
        clear_answer(wen, pairs[0], by=by_wen)
        db.session.commit()
        after = _readers(project, wes, wen, truth)
        # Reference: the same history without pairs 1 and 2 and without wen's pair 0.
        record_decision(wen, pairs[0], "same", "high", by=by_wen)
        db.session.commit()
        restored = _readers(project, wes, wen, truth)
        for name in before:
            assert restored[name] == before[name], name
        for name in ("outcomes", "worker wen"):
            assert after[name] != before[name], name
        assert after["outcomes"][pairs[0]][0] == ["same"]
        assert after["outcomes"][pairs[1]][0] == after["outcomes"][pairs[2]][0] == []
        assert after["worker wen"][0][0] == 0 and after["worker wes"][0][0] == 2
