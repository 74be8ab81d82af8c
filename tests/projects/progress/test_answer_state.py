"""The answers the database keeps (``answer_states``, ``pair_answers``, kept by triggers) equal
the SQL oracle over the decision events on every path: answers through the service, clears,
re-answers, resolver answers, another reviewer given answered pairs (a referral, a new round's
assignment), resolutions, and the migration's copy of existing answers."""

from __future__ import annotations

import importlib.util
from pathlib import Path

from sqlalchemy import select, text

from app.extensions import db
from app.models import Assignment, Pair, User
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

MIGRATION = (
    Path(__file__).parents[3] / "migrations/versions/3f6a2d8c1b47_answer_states_pair_answers.py"
)


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


def _migration():
    spec = importlib.util.spec_from_file_location("revision", MIGRATION)
    revision = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(revision)
    return revision


def test_the_migration_copies_the_models_triggers():
    revision = _migration()
    assert TRIGGERS["sqlite"] == revision.SQLITE
    assert TRIGGERS["postgresql"] == revision.POSTGRESQL
