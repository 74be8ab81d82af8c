"""SQLite writers of one process queue on their own lock, handed over at once (issue 28.9).

SQLite's own wait for its write lock sleeps in steps growing to 100 ms while the lock may be
free; a bystander's reveal waited 0.5-0.75 s behind a burst. ``app.database`` queues the
writers of a process on a lock of its own, so they never need SQLite's wait: with that wait
turned off, a second writer still gets its turn as soon as the first ends, by commit,
rollback or a lost connection, and nothing keeps the turn afterwards.
"""

from __future__ import annotations

import threading

import pytest
import sqlalchemy as sa

from app import database
from app.extensions import db
from app.models import User
from tests.conftest import PG_URL

pytestmark = pytest.mark.skipif(bool(PG_URL), reason="SQLite's write lock (PostgreSQL locks rows)")


@pytest.fixture
def engine(app, monkeypatch):
    """The app's main engine, its connections opened again with SQLite's own wait at 0."""
    monkeypatch.setattr(database, "BUSY_TIMEOUT_MS", 0)
    monkeypatch.setattr(database, "WRITER_WAIT_SECONDS", 5.0)  # a stuck turn fails the test
    with app.app_context():
        engine = db.engine
        engine.dispose()
        yield engine


def _insert(conn, name: str) -> None:
    table = User.__table__
    conn.execute(
        table.insert().values(
            username=name, role="worker", password_hash="x", active=True, session_version=0,
            failed_logins=0, must_change_password=False,
        )
    )  # fmt: skip


def test_a_second_writer_waits_for_its_turn_not_for_sqlite(app, engine):
    first_began, errors = threading.Event(), []

    def first():
        with app.app_context(), engine.begin() as conn:
            _insert(conn, "first")
            first_began.set()
            threading.Event().wait(0.3)  # hold the write lock a while

    def second():
        first_began.wait(5)
        try:
            with app.app_context(), engine.begin() as conn:
                _insert(conn, "second")
        except sa.exc.OperationalError as exc:  # "database is locked"
            errors.append(exc)

    threads = [threading.Thread(target=first), threading.Thread(target=second)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(10)
    assert errors == []
    with engine.connect() as conn:
        names = conn.execute(sa.select(User.username).order_by(User.id)).scalars().all()
    assert names == ["first", "second"]
    assert not engine._mindfirl_writer.lock.locked()


@pytest.mark.parametrize("end", ["commit", "rollback", "error", "invalidate"])
def test_the_turn_is_given_back_however_the_transaction_ends(engine, end):
    conn = engine.connect()
    conn.begin()
    _insert(conn, "someone")
    assert engine._mindfirl_writer.lock.locked()
    if end == "commit":
        conn.commit()
    elif end == "rollback":
        conn.rollback()
    elif end == "error":
        with pytest.raises(sa.exc.IntegrityError):
            _insert(conn, "someone")  # a duplicate username
        conn.rollback()
    else:
        conn.invalidate()
    conn.close()
    assert not engine._mindfirl_writer.lock.locked()
    with engine.begin() as again:  # and the next writer gets it
        _insert(again, "next")
