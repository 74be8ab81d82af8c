"""The progress summary counted by the database and over answered pairs only equals the
one computed from every pair's outcome (the way it was computed before issue 24)."""

from __future__ import annotations

import pytest
from sqlalchemy import select

from app.analytics.kapr import collusion
from app.extensions import db
from app.models import CLEARED, Pair, User
from app.projects.blocking.pairing import create_pairs
from app.projects.conflicts.queue import conflict_queue, resolve_conflict
from app.projects.progress import charts, counts, recount
from app.projects.progress.agreement import agreement
from app.projects.progress.listing import project_summaries
from app.projects.progress.outcomes import outcomes, touched_pairs
from app.projects.progress.summary import project_progress
from app.projects.staffing import assign_pairs
from app.projects.staffing.workers import assign_workers
from tests.factories import make_user
from tests.projects.conftest import decide, linked_project


def _from_every_outcome(project):
    """The summary's numbers from :func:`outcomes` of every pair (the per-pair oracle)."""
    by_pair = outcomes(project.id)
    counts, double = {}, []
    for outcome in by_pair.values():
        for answer in outcome.answers:
            pairs, decided = counts.get(answer.assignment_id, (0, 0))
            counts[answer.assignment_id] = (pairs + 1, decided + (answer.decision is not None))
        decided = outcome.decided
        if len(decided) >= 2:
            double.append((decided[0], decided[1]))
    given = [len(o.decided) for o in by_pair.values()]
    due = [len(o.answers) for o in by_pair.values()]
    return {
        "pairs": len(by_pair),
        "decided": sum(o.final is not None for o in by_pair.values()),
        "conflicts": sum(o.open for o in by_pair.values()),
        "assigned": sum(d > 0 for d in due),
        "answered": sum(d > 0 and g == d for g, d in zip(given, due, strict=True)),
        "answers": sum(given),
        "answers_due": sum(due),
        "agreement": agreement(double),
        "workers": counts,
    }


def _summary(progress):
    return {
        "pairs": progress.pairs, "decided": progress.decided, "conflicts": progress.conflicts,
        "assigned": progress.assigned, "answered": progress.answered,
        "answers": progress.answers, "answers_due": progress.answers_due,
        "agreement": progress.agreement,
        "workers": {w.assignment_id: (w.pairs, w.decided) for w in progress.workers},
    }  # fmt: skip


@pytest.mark.parametrize("coders", [1, 2, 3])
def test_summary_equals_the_per_pair_computation(app, people, coders):
    with app.app_context():
        project = linked_project(people)
        create_pairs(project, [["last_name"]])
        make_user("wil")
        made = assign_workers(project, {"wes": 0.5, "wen": 0.5, "wil": 0.5}, coders=coders)
        db.session.commit()
        ids = db.session.scalars(select(Pair.id).order_by(Pair.id)).all()
        assert _summary(project_progress(project)) == _from_every_outcome(project)
        answers = ["same", "different", "unsure", "same", CLEARED, "different", "same"]
        for i, pair_id in enumerate(ids[:12]):
            for k, assignment in enumerate(made):
                if any(link.pair_id == pair_id for link in assignment.pairs) and (i + k) % 4:
                    decide(assignment, pair_id, answers[(i * 3 + k) % len(answers)])
        db.session.commit()
        manager = db.session.get(User, people["max"])
        for conflict in [p for p, o in outcomes(project.id).items() if o.open][:1]:
            resolve_conflict(project, conflict, "same", "low", by=manager)
            db.session.commit()
        expected = _from_every_outcome(project)
        assert expected["answers"] > 0 and (coders == 1 or expected["agreement"].pairs > 0)
        assert _summary(project_progress(project)) == expected
        reviewers = [a.id for a in made]
        by_sql = recount.answer_counts_by_sql(project.id, reviewers)
        assert recount.counted_answers(project.id, reviewers) == by_sql  # numpy == SQL
        assert counts.stored_answers(project.id, reviewers) == by_sql  # kept state == SQL
        touched = outcomes(project.id, only=touched_pairs(project.id))
        every = outcomes(project.id)
        assert touched == {p: every[p] for p in touched}  # the same outcome, pair by pair
        untouched = [o for p, o in every.items() if p not in touched]
        assert not any(o.decided or o.resolution for o in untouched)
        assert charts.agreement_chart(project) == _agreement_chart_of(every)
        queue = {item.pair_id: item.outcome for item in conflict_queue(project)}
        assert queue == {p: o for p, o in every.items() if o.conflict}
        (listed,) = project_summaries([project])
        answered = [o for o in every.values() if o.answers and all(a.decision for a in o.answers)]
        assert (listed.answered, listed.settled, listed.conflicts) == (
            len(answered),
            expected["decided"],
            expected["conflicts"],
        )


def _agreement_chart_of(by_pair):
    from collections import Counter

    from app import charts as chart_specs

    table = Counter()
    for outcome in by_pair.values():
        decided = outcome.decided
        if len(decided) >= 2:
            table[decided[0], decided[1]] += 1
    labels = charts.LABELS
    return chart_specs.bar(
        "Agreement between first and second coder",
        [f"first: {a}" for a in labels],
        [chart_specs.Series(f"second: {b}", [table[a, b] for a in labels]) for b in labels],
        x_title="First coder's answer",
        y_title="Pairs",
    )


def test_pooled_count_is_every_pooled_pair_also_when_loading_the_disclosed_only(app, people):
    with app.app_context():
        project = linked_project(people)
        create_pairs(project, [["last_name"]])
        wes, wen = (db.session.get(User, people[n]) for n in ("wes", "wen"))
        ids = db.session.scalars(select(Pair.id).order_by(Pair.id)).all()
        assign_pairs(project, wes, 1.0, ids[:5])
        assign_pairs(project, wen, 1.0, ids[3:9], start_partial=["last_name", "first_name"])
        db.session.commit()
        every = collusion.pooled_state(project)
        shown = collusion.pooled_state(project, disclosed_only=True)
        assert every.n_pairs == shown.n_pairs == 9
        assert [p.id for p in every.pairs] == ids[:9]
        disclosed = [p.id for p, s in zip(every.pairs, every.states, strict=True) if s.levels]
        assert disclosed and [p.id for p in shown.pairs] == disclosed


def test_answer_counts_are_counted_once_per_get_request_only(app, people):
    from app.projects.progress.counts import answer_counts

    with app.app_context():
        project = linked_project(people)
        create_pairs(project, [["last_name"]])
        (made,) = assign_workers(project, {"wes": 0.5})
        db.session.commit()
        pair_id = made.pairs[0].pair_id
        with app.test_request_context(method="GET"):
            first = answer_counts(project.id, [made.id])
            assert answer_counts(project.id, [made.id]) is first
        with app.test_request_context(method="GET"):  # the same app context, a new request
            assert answer_counts(project.id, [made.id]) is not first
        with app.test_request_context(method="POST"):
            before = answer_counts(project.id, [made.id])
            decide(made, pair_id, "same")
            db.session.flush()
            assert answer_counts(project.id, [made.id]).answers == before.answers + 1
