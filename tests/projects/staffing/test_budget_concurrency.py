"""Budget changes racing reveals never leave KAPR above the budget (SQLite and PostgreSQL).

``change_budget`` locks the assignment row like ``reveal_cell``: a lowering is checked
against the KAPR actually spent, and a reveal is checked against the budget actually set.
"""

from __future__ import annotations

import itertools
import threading
from fractions import Fraction

import sqlalchemy as sa

from app.extensions import db
from app.models import Assignment, BudgetChange, RevealEvent, User
from app.projects.staffing.assignments import AssignmentError
from app.projects.staffing.workers import change_budget
from tests.api.conftest import make_worker
from tests.api.test_reveal_concurrency import check_chain

BUDGETS = (0.01, 0.2, 0.02, 0.05, 0.03, 0.5, 0.015)


def test_budget_changes_racing_reveals_keep_kapr_within_budget(app, client):
    worker = make_worker(app, client, budget=0.02)
    targets = [(p, r, a) for p, r, a, c in worker.cells() if c["next_level"]]
    with app.app_context():
        manager_id = db.session.scalar(sa.select(User.id).where(User.username == "wes-manager"))
    start, violations, errors = threading.Barrier(5), [], []
    stop = threading.Event()

    def reveal(share):
        client = app.test_client()
        start.wait()
        for pair_id, row, attribute in share * 2:
            client.post(
                f"/api/v1/assignments/{worker.assignment_id}/reveal",
                json={"pair_id": pair_id, "row": row, "attribute": attribute},
                headers=worker.headers,
            )

    def change():
        with app.app_context():
            start.wait()
            for budget in itertools.islice(itertools.cycle(BUDGETS), 40):
                manager = db.session.get(User, manager_id)
                assignment = db.session.get(Assignment, worker.assignment_id)
                try:
                    change_budget(assignment, budget, by=manager)
                except AssignmentError:
                    db.session.rollback()  # lower than spent: refused, nothing changed
                except Exception as exc:  # noqa: BLE001 (reported below)
                    errors.append(exc)
                    db.session.rollback()
                else:
                    db.session.commit()
            db.session.remove()

    def watch():
        with app.app_context():
            start.wait()
            while not stop.is_set():
                kapr, budget = db.session.execute(
                    sa.select(Assignment.kapr_exact, Assignment.budget).where(
                        Assignment.id == worker.assignment_id
                    )
                ).one()
                db.session.rollback()
                if Fraction(kapr) > Fraction(repr(budget)):
                    violations.append((kapr, budget))
            db.session.remove()

    threads = [threading.Thread(target=reveal, args=(targets[i::3],)) for i in range(3)]
    threads += [threading.Thread(target=change)]
    watcher = threading.Thread(target=watch)
    for thread in [*threads, watcher]:
        thread.start()
    for thread in threads:
        thread.join()
    stop.set()
    watcher.join()

    assert errors == [] and violations == []
    with app.app_context():
        assignment = db.session.get(Assignment, worker.assignment_id)
        events = db.session.scalars(
            sa.select(RevealEvent)
            .where(RevealEvent.assignment_id == assignment.id)
            .order_by(RevealEvent.id)
        ).all()
        kapr = check_chain(assignment, events)
        assert events and kapr <= Fraction(repr(assignment.budget))
        changes = db.session.scalars(sa.select(BudgetChange).order_by(BudgetChange.id)).all()
        assert changes and changes[-1].budget_after == assignment.budget
        # The recorded changes form one chain: each starts from the previous one's budget.
        for before, after in itertools.pairwise(changes):
            assert after.budget_before == before.budget_after
