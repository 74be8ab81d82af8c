"""Many threads revealing in one assignment never beat the budget or lose an event.

Runs on SQLite (writers serialised by BEGIN IMMEDIATE) and, in the PostgreSQL pass of the
suite, on PostgreSQL (row lock on the assignment).
"""

import threading
from fractions import Fraction

import pytest
import sqlalchemy as sa

from app.extensions import db
from app.models import Assignment, CellState, RevealEvent
from tests.api.conftest import make_worker

THREADS = 8


@pytest.fixture
def app_overrides():
    """No bound on one account's reveals in flight (app.auth.throttle): the races under test
    are those of one account's concurrent reveals, as several server processes still run."""
    return {"REVEALS_IN_FLIGHT_PER_ACCOUNT": 0}


def hammer(app, worker, targets, rounds):
    """Each thread reveals its share of ``targets`` ``rounds`` times; return status codes."""
    statuses, barrier = [], threading.Barrier(THREADS)
    lock = threading.Lock()

    def run(share):
        client = app.test_client()
        barrier.wait()
        for _ in range(rounds):
            for pair_id, row, attribute in share:
                response = client.post(
                    f"/api/v1/assignments/{worker.assignment_id}/reveal",
                    json={"pair_id": pair_id, "row": row, "attribute": attribute},
                    headers=worker.headers,
                )
                with lock:
                    statuses.append(response.status_code)

    # Threads overlap on purpose: every cell is wanted by two threads.
    shares = [targets[i :: THREADS // 2] for i in range(THREADS // 2)] * 2
    threads = [threading.Thread(target=run, args=(share,)) for share in shares]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return statuses


def audit(app, assignment_id):
    with app.app_context():
        assignment = db.session.get(Assignment, assignment_id)
        events = db.session.scalars(
            sa.select(RevealEvent)
            .where(RevealEvent.assignment_id == assignment_id)
            .order_by(RevealEvent.id)
        ).all()
        cells = db.session.scalar(sa.select(sa.func.count()).select_from(CellState))
        return assignment, events, cells


def check_chain(assignment, events):
    """Each event starts where the previous one ended; the total is the sum of the costs."""
    kapr = Fraction(0)
    for event in events:
        assert Fraction(event.kapr_before_exact) == kapr
        kapr += Fraction(event.cost_exact)
        assert Fraction(event.kapr_after_exact) == kapr
    assert Fraction(assignment.kapr_exact) == kapr
    return kapr


def test_concurrent_reveals_stay_within_the_budget(app, client):
    worker = make_worker(app, client, budget=0.05)
    targets = [(p, r, a) for p, r, a, c in worker.cells() if c["next_level"]]
    statuses = hammer(app, worker, targets, rounds=2)
    assert set(statuses) <= {200, 409}
    assignment, events, _ = audit(app, worker.assignment_id)
    kapr = check_chain(assignment, events)
    assert kapr <= Fraction("0.05")
    assert statuses.count(200) == len(events)
    assert statuses.count(409) > 0  # the budget did bind


def test_concurrent_reveals_without_a_budget_limit_charge_each_level_once(app, client):
    worker = make_worker(app, client, budget=1.0)
    targets = [(p, r, a) for p, r, a, c in worker.cells() if c["next_level"]]
    statuses = hammer(app, worker, targets, rounds=3)
    assignment, events, cells = audit(app, worker.assignment_id)
    assert check_chain(assignment, events) == Fraction(3, 4)  # everything full, exactly once
    assert statuses.count(200) == len(events)
    # Each cell went up level by level: no level was skipped or charged twice.
    seen = {}
    for event in events:
        key = (event.pair_id, event.row, event.attribute_id)
        assert seen.get(key, "masked") == event.level_from
        seen[key] = event.level_to
    assert set(seen.values()) == {"full"} and cells == len(seen)
