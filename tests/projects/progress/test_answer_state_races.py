"""Reviewers answering the same pairs at once, while the manager gives the pairs to one more
reviewer, leave the kept answers equal to the SQL oracle: on PostgreSQL, the triggers' row
and advisory locks (SQLite writes one at a time)."""

from __future__ import annotations

import threading

import pytest
from sqlalchemy import select

from app.extensions import db
from app.models import Pair, User
from app.projects.blocking.pairing import create_pairs
from app.projects.staffing import assign_pairs
from app.review.answers import save_answer
from tests.factories import make_user
from tests.projects.conftest import linked_project
from tests.projects.progress.test_answer_state import _same_as_oracle

ROUNDS = 3


@pytest.mark.postgres  # SQLite takes one writer at a time: no race to test
def test_concurrent_answers_and_a_new_slot_keep_the_counts(app, people):
    with app.app_context():
        project = linked_project(people)
        create_pairs(project, [["last_name"]])
        project.allow_unsure = True
        ids = db.session.scalars(select(Pair.id).order_by(Pair.id)).all()[:10]
        names = ("wes", "wen", "wil")
        make_user("wil")
        make_user("wyn")
        made = {}
        for name in names:
            worker = db.session.scalar(select(User).where(User.username == name))
            made[name] = (assign_pairs(project, worker, 1.0, ids).id, worker.id)
        db.session.commit()
        project_id = project.id
    barrier = threading.Barrier(len(names) + 1, timeout=60)
    errors: list[BaseException] = []

    def answer(name: str, offset: int) -> None:
        try:
            with app.app_context():
                assignment_id, worker_id = made[name]
                worker = db.session.get(User, worker_id)
                barrier.wait()
                for k in range(ROUNDS):
                    for i, pair_id in enumerate(ids):
                        choice = ("same", "different", "unsure")[(i + offset + k) % 3]
                        save_answer(assignment_id, pair_id, choice, None if choice == "unsure"
                                    else "high", by=worker)  # fmt: skip
                        db.session.commit()
        except BaseException as exc:  # noqa: BLE001  (reported below)
            errors.append(exc)

    def assign_more() -> None:
        try:
            with app.app_context():
                from app.models import Project

                project = db.session.get(Project, project_id)
                worker = db.session.scalar(select(User).where(User.username == "wyn"))
                barrier.wait()
                assign_pairs(project, worker, 1.0, ids)
                db.session.commit()
        except BaseException as exc:  # noqa: BLE001
            errors.append(exc)

    threads = [threading.Thread(target=answer, args=(n, i)) for i, n in enumerate(names)]
    threads.append(threading.Thread(target=assign_more))
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert not errors, errors
    with app.app_context():
        from app.models import Project

        found = _same_as_oracle(db.session.get(Project, project_id))
        assert found.answers == len(names) * len(ids)
