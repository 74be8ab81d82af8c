"""The answers the database keeps (``answer_states``, ``pair_answers``, kept by triggers) equal
the SQL oracle over the decision events on every path: answers through the service, clears,
re-answers, resolver answers, another reviewer given answered pairs (a referral, a new round's
assignment), resolutions, and the migration's copy of existing answers."""

from __future__ import annotations

import importlib.util
from pathlib import Path

from sqlalchemy import insert, select, text

from app.extensions import db
from app.models import CLEARED, Assignment, DecisionEvent, Pair, User
from app.models.events import TRIGGERS
from app.projects.blocking.pairing import create_pairs
from app.projects.conflicts.queue import (
    conflict_queue,
    open_for_resolution,
    refer_conflict,
    resolve_conflict,
)
from app.projects.progress import counts, recount
from app.projects.staffing import assign_pairs
from app.review.answers import clear_answer, save_answer
from tests.factories import make_user
from tests.projects.conftest import decide, linked_project

VERSIONS = Path(__file__).parents[3] / "migrations/versions"
MIGRATION = VERSIONS / "3f6a2d8c1b47_answer_states_pair_answers.py"
# PostgreSQL's answer trigger per statement (SQLite's are the first revision's still).
PER_STATEMENT = VERSIONS / "1eeaf39c6e44_answer_trigger_per_statement.py"


def _reviewers(project) -> list[int]:
    return list(
        db.session.scalars(
            select(Assignment.id)
            .where(Assignment.project_id == project.id, Assignment.resolver.is_(False))
            .order_by(Assignment.id)
        )
    )


def _same_as_oracle(project) -> counts.AnswerCounts:
    reviewers = _reviewers(project)
    stored = counts.stored_answers(project.id, reviewers)
    assert stored == recount.answer_counts_by_sql(project.id, reviewers)
    return stored


def test_kept_answers_equal_the_oracle_on_every_path(app, people):
    with app.app_context():
        project = linked_project(people)
        create_pairs(project, [["last_name"]])
        ids = db.session.scalars(select(Pair.id).order_by(Pair.id)).all()[:8]
        wes, wen, max_ = (db.session.get(User, people[n]) for n in ("wes", "wen", "max"))
        wil = make_user("wil")
        a = assign_pairs(project, wes, 1.0, ids)
        b = assign_pairs(project, wen, 1.0, ids[:6])
        db.session.commit()
        assert _same_as_oracle(project).answers == 0
        for i, pair_id in enumerate(ids):  # the service's path (Core insert)
            save_answer(a.id, pair_id, ("same", "different")[i % 2], "high", by=wes)
        for i, pair_id in enumerate(ids[:6]):  # ORM inserts, re-answers, a clear
            decide(b, pair_id, ("different", "same", "unsure")[i % 3])
        db.session.commit()
        decide(b, ids[0], "same")
        clear_answer(b, ids[1], by=wen)
        clear_answer(a, ids[7], by=wes)
        db.session.commit()
        found = _same_as_oracle(project)
        assert found.conflicts > 0 and found.double
        open_ = [item.pair_id for item in conflict_queue(project) if item.can_resolve]
        # A resolver's answers are no review: they change nothing counted.
        resolver = open_for_resolution(project, open_[0], max_)
        decide(resolver, open_[0], "same")
        resolve_conflict(project, open_[0], "same", "low", by=max_)
        db.session.commit()
        _same_as_oracle(project)
        project.conflict_policy = "reviewer"
        db.session.commit()
        referable = [item.pair_id for item in conflict_queue(project) if item.can_refer]
        referral = refer_conflict(project, referable[0], wil, 1.0, by=max_)  # a third slot
        db.session.commit()
        before = _same_as_oracle(project)
        third = db.session.get(Assignment, referral.assignment_id)
        decide(third, referable[0], "different")
        db.session.commit()
        assert _same_as_oracle(project) != before
        # A new assignment of pairs already answered: their answers are due again.
        assign_pairs(project, make_user("wyn"), 1.0, ids[6:], round=2)
        db.session.commit()
        _same_as_oracle(project)
        clear_answer(a, ids[6], by=wes)
        db.session.commit()
        kept = _same_as_oracle(project)
        # The migration's copy of existing answers gives the same state from the events alone.
        db.session.execute(text("DELETE FROM pair_answers"))
        db.session.execute(text("DELETE FROM answer_states"))
        for statement in _migration().BACKFILL:
            db.session.execute(text(statement))
        db.session.commit()
        assert _same_as_oracle(project) == kept


def test_answers_inserted_many_a_statement_keep_the_same_state(app, people):
    """One statement of many events (a bulk load; on PostgreSQL one trigger call over them
    all): a pair answered twice in it, a clear after an answer, a resolver's answer, pairs
    two reviewers share, beside answers saved one by one before and after."""
    with app.app_context():
        project = linked_project(people)
        create_pairs(project, [["last_name"]])
        ids = db.session.scalars(select(Pair.id).order_by(Pair.id)).all()[:6]
        wes, wen, max_ = (db.session.get(User, people[n]) for n in ("wes", "wen", "max"))
        a = assign_pairs(project, wes, 1.0, ids)
        b = assign_pairs(project, wen, 1.0, ids[:4])
        db.session.commit()
        resolver = assign_pairs(project, max_, 1.0, ids[:2], resolver=True)
        save_answer(a.id, ids[0], "different", "low", by=wes)
        db.session.commit()
        rows = [
            (a, ids[0], "same"), (b, ids[0], "different"), (a, ids[1], "same"),
            (b, ids[1], "same"), (a, ids[1], CLEARED), (resolver, ids[1], "different"),
            (a, ids[2], "unsure"), (a, ids[2], "different"), (b, ids[3], "same"),
            (a, ids[4], CLEARED), (a, ids[5], "same"),
        ]  # fmt: skip
        events = insert(DecisionEvent).values(
            [{"assignment_id": x.id, "pair_id": pair, "user_id": x.worker_id, "decision": d,
              "confidence": None if d == CLEARED else "high"} for x, pair, d in rows]
        )  # fmt: skip
        db.session.execute(events)  # one statement of 11 rows
        db.session.commit()
        found = _same_as_oracle(project)
        assert found.per_assignment == {a.id: 3, b.id: 3}
        assert found.conflicts == 1 and found.double == {("same", "different"): 1}
        clear_answer(b, ids[0], by=wen)
        save_answer(a.id, ids[1], "different", "high", by=wes)
        db.session.commit()
        assert _same_as_oracle(project).conflicts == 1


def _migration(path=MIGRATION):
    spec = importlib.util.spec_from_file_location("revision", path)
    revision = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(revision)
    return revision


def test_the_migration_copies_the_models_triggers():
    first, per_statement = _migration(), _migration(PER_STATEMENT)
    assert TRIGGERS["sqlite"] == first.SQLITE
    assert TRIGGERS["postgresql"] == per_statement.POSTGRESQL
    assert first.POSTGRESQL[:2] == per_statement.ROW_TRIGGER
