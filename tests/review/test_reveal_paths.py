"""The reveal's write path: a few statements, the lock only for the write, readers never wait,
and a reveal priced on a state that moved is priced again (SQLite and PostgreSQL)."""

import contextlib
import re
import tempfile
import threading
from fractions import Fraction

import pytest
import sqlalchemy as sa

from app.extensions import db
from app.models import Assignment, RevealEvent
from app.review.reveal import service as reveal_module
from tests.api.conftest import make_worker


@pytest.fixture
def app_overrides():
    """No bound on one account's reveals in flight (app.auth.throttle): the races under test
    are those of one account's concurrent reveals, as several server processes still run."""
    return {"REVEALS_IN_FLIGHT_PER_ACCOUNT": 0}


WAIT = 20  # seconds: only a stall (a reader queued behind the lock) gets anywhere near it


def statements_of(app, action) -> list[str]:
    """The first word of every statement ``action`` sends to the main database.

    On PostgreSQL from libpq's trace of the connections checked out meanwhile, so it sees
    what SQLAlchemy's events do not: the driver's own BEGIN and COMMIT, and statements run on
    the psycopg cursor (the reveal's read and charge).
    """
    with app.app_context():
        engine = db.engine
    if engine.dialect.name == "postgresql":
        return _traced_statements(engine, action)
    seen = []

    def listen(_conn, _cursor, statement, *_):
        seen.append(statement.split(None, 1)[0].upper())

    sa.event.listen(engine, "before_cursor_execute", listen)
    try:
        action()
    finally:
        sa.event.remove(engine, "before_cursor_execute", listen)
    return seen


def _traced_statements(engine, action) -> list[str]:
    import psycopg

    traced = []

    def checkout(dbapi_connection, *_):
        dbapi_connection.pgconn.trace(trace.fileno())
        dbapi_connection.pgconn.set_trace_flags(psycopg.pq.Trace.SUPPRESS_TIMESTAMPS)
        traced.append(dbapi_connection)

    with tempfile.TemporaryFile() as trace:
        sa.event.listen(engine, "checkout", checkout)
        try:
            action()
        finally:
            sa.event.remove(engine, "checkout", checkout)
            for connection in traced:
                if not connection.closed:
                    connection.pgconn.untrace()
        trace.seek(0)
        lines = trace.read().decode(errors="replace").splitlines()
    # frontend messages: Query "SQL" (simple protocol) and Parse "name" "SQL" (extended)
    found = [
        re.match(r'F\t\d+\t(?:Query\t "|Parse\t "[^"]*" ")([A-Za-z]+)', line) for line in lines
    ]
    return [m.group(1).upper() for m in found if m]


def open_cells(worker):
    return [(p, r, a) for p, r, a, c in worker.cells() if c["next_level"]]


def reveal_from_another_client(app, worker, cell) -> int:
    pair_id, row, attribute = cell
    return (
        app.test_client()
        .post(
            f"/api/v1/assignments/{worker.assignment_id}/reveal",
            json={"pair_id": pair_id, "row": row, "attribute": attribute},
            headers=worker.headers,
        )
        .status_code
    )


def test_a_reveal_is_a_few_statements(app, client):
    worker = make_worker(app, client)
    first, second = open_cells(worker)[:2]
    assert worker.reveal(*first).status_code == 200  # warms the token and attribute caches
    seen = statements_of(app, lambda: worker.reveal(*second))
    with app.app_context():
        dialect = db.engine.dialect.name
    if dialect == "postgresql":
        # The read, then charge + cell + event in one statement; no BEGIN/COMMIT round trips
        # (under a bearer token too, whose cached user the request's session merged).
        assert seen == ["SELECT", "WITH"]
    else:
        assert seen == ["BEGIN", "SELECT", "COMMIT", "BEGIN", "UPDATE", "INSERT", "INSERT"]


def test_a_reveal_priced_on_a_state_that_moved_is_priced_again(app, client, monkeypatch):
    """Another reveal on the same pair commits between this one's read and its write."""
    worker = make_worker(app, client, budget=1.0)
    cells = open_cells(worker)
    pair_id = cells[0][0]
    mine, theirs = [c for c in cells if c[0] == pair_id][:2]
    real_plan, interfered = reveal_module._plan, []

    def plan_then_interfere(connection, *args):
        plan = real_plan(connection, *args)
        if not interfered:
            interfered.append(True)
            interfered.append(
                run_in_thread(lambda: reveal_from_another_client(app, worker, theirs))
            )
        return plan

    monkeypatch.setattr(reveal_module, "_plan", plan_then_interfere)
    # The interfering reveal stands for one in another process: this process's per-assignment
    # gate (which would make it wait for this one) does not hold it back.
    monkeypatch.setattr(reveal_module, "_gate", lambda _id: contextlib.nullcontext())
    response = worker.reveal(*mine)
    assert interfered == [True, 200]
    assert response.status_code == 200
    monkeypatch.undo()
    with app.app_context():
        assignment = db.session.get(Assignment, worker.assignment_id)
        events = db.session.scalars(sa.select(RevealEvent).order_by(RevealEvent.id)).all()
        assert len(events) == 2
        assert Fraction(events[1].kapr_before_exact) == Fraction(events[0].kapr_after_exact)
        assert Fraction(assignment.kapr_exact) == sum(Fraction(e.cost_exact) for e in events)
    page = worker.page().get_json()
    assert Fraction(page["assignment"]["kapr_exact"]) == Fraction(assignment.kapr_exact)


def run_in_thread(fn):
    box = {}
    thread = threading.Thread(target=lambda: box.setdefault("value", fn()))
    thread.start()
    thread.join(WAIT)
    return box.get("value")


def test_readers_do_not_wait_for_a_reveal_holding_the_write_lock(app, client, monkeypatch):
    worker = make_worker(app, client)
    bystander = make_worker(app, client, name="bea")
    target = open_cells(worker)[0]
    holding, release = threading.Event(), threading.Event()
    real_charge = reveal_module.charge

    def charge_and_hold(connection, params):
        written = real_charge(connection, params)
        holding.set()  # the reveal's write is done, its lock still held (until commit)
        release.wait(WAIT)
        return written

    monkeypatch.setattr(reveal_module, "charge", charge_and_hold)
    revealing = threading.Thread(target=lambda: worker.reveal(*target))
    revealing.start()
    try:
        assert holding.wait(WAIT)
        # Other users' pages and their own reads, and the revealing worker's page: no wait.
        assert run_in_thread(lambda: bystander.page().status_code) == 200
        me = run_in_thread(lambda: client.get("/api/v1/me", headers=bystander.headers))
        assert me is not None and me.status_code == 200
        assert run_in_thread(lambda: worker.page().status_code) == 200
    finally:
        release.set()
        revealing.join(WAIT)
    assert not revealing.is_alive()


def test_readers_do_not_wait_for_a_writer_holding_the_assignment(app, client):
    """The lock a reveal takes, held by another connection: pages still answer at once."""
    worker = make_worker(app, client)
    with app.app_context():
        engine = db.engine
    with engine.connect() as other:
        if engine.dialect.name == "sqlite":  # begins IMMEDIATE (no request): the write lock
            other.execute(sa.text("UPDATE assignments SET version = version"))
        else:
            other.execute(
                sa.select(Assignment.id)
                .where(Assignment.id == worker.assignment_id)
                .with_for_update()
            )
        assert run_in_thread(lambda: worker.page().status_code) == 200
        me = run_in_thread(lambda: client.get("/api/v1/me", headers=worker.headers))
        assert me is not None and me.status_code == 200
        other.rollback()


@pytest.mark.parametrize("tries", [0, 3])
def test_concurrent_reveals_through_either_path_keep_the_chain(app, client, monkeypatch, tries):
    """``tries=0`` sends every PostgreSQL reveal through the locking transaction."""
    monkeypatch.setattr(reveal_module, "OPTIMISTIC_TRIES", tries)
    worker = make_worker(app, client, budget=0.05)
    targets = open_cells(worker)
    statuses, lock = [], threading.Lock()

    def run(share):
        own = app.test_client()
        for pair_id, row, attribute in share:
            response = own.post(
                f"/api/v1/assignments/{worker.assignment_id}/reveal",
                json={"pair_id": pair_id, "row": row, "attribute": attribute},
                headers=worker.headers,
            )
            with lock:
                statuses.append(response.status_code)

    # Eight threads; every cell is wanted by two of them.
    threads = [threading.Thread(target=run, args=(targets[i % 4 :: 4],)) for i in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(WAIT * 3)
    assert set(statuses) <= {200, 409}
    with app.app_context():
        assignment = db.session.get(Assignment, worker.assignment_id)
        events = db.session.scalars(sa.select(RevealEvent).order_by(RevealEvent.id)).all()
        kapr = Fraction(0)
        for event in events:
            assert Fraction(event.kapr_before_exact) == kapr
            kapr += Fraction(event.cost_exact)
        assert Fraction(assignment.kapr_exact) == kapr <= Fraction("0.05")
    assert statuses.count(200) == len(events)


def test_reveals_of_one_assignment_in_one_process_are_priced_once_each(app, client, monkeypatch):
    """Threads of one process (a gunicorn worker) revealing on one assignment at once: each
    reveal is read and priced once, none loses its compare-and-set to a sibling thread."""
    with app.app_context():
        if db.engine.dialect.name != "postgresql":
            pytest.skip("SQLite reveals run in a transaction that holds the write lock")
    worker = make_worker(app, client, budget=1.0)
    targets = open_cells(worker)[:16]
    real_plan, plans, lock = reveal_module._plan, [], threading.Lock()

    def counted_plan(connection, *args):
        with lock:
            plans.append(args[1:4])
        return real_plan(connection, *args)

    monkeypatch.setattr(reveal_module, "_plan", counted_plan)
    start, statuses = threading.Barrier(8), []

    def run(share):
        own = app.test_client()
        start.wait(WAIT)
        for pair_id, row, attribute in share:
            response = own.post(
                f"/api/v1/assignments/{worker.assignment_id}/reveal",
                json={"pair_id": pair_id, "row": row, "attribute": attribute},
                headers=worker.headers,
            )
            statuses.append(response.status_code)

    threads = [threading.Thread(target=run, args=(targets[n::8],)) for n in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(WAIT * 3)
    assert statuses == [200] * len(targets)
    assert sorted(plans) == sorted(targets)  # one pricing per reveal, no retries
