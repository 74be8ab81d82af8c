"""Database life cycle: engine hooks, SQLite's write lock, and the embedded database's self-upgrade.

SQLite has one write lock for the whole file and takes it lazily: a transaction that reads
and later writes may find another writer got there first (``SQLITE_BUSY``) or, worse, decide
on data that changed under it. So a transaction that may write begins ``BEGIN IMMEDIATE``
and holds the write lock from its first statement. Holding it for a *read* would make every
reader queue behind every writer (a burst of reveals stalled everybody's pages), so:

- a read begins ``BEGIN`` (deferred): a GET, HEAD or OPTIONS request, a view marked
  :func:`reads_first`, or code inside :func:`reads_only` (a job's cancel watch, which polls
  its row every second). Under WAL a reader never waits for a writer.
- everything else (other requests, the CLI, jobs) begins ``BEGIN IMMEDIATE`` as before.
- a :func:`reads_first` view calls :func:`begin_write` where its writing starts: the read
  snapshot ends and the write lock is taken there, so it is held only for the write. The
  reveal does this (``app.review.services``): its reads and its cost computation happen
  before the lock, and a compare-and-set on the assignment's ``version`` catches anything
  that changed in between.

Writers of one process queue for the write lock on a lock of their own (``_Writer``), taken
before ``BEGIN IMMEDIATE`` and handed to the next writer the moment the transaction ends.
SQLite's own wait (``busy_timeout``) polls with sleeps that grow to 100 ms, during which the
free lock sits idle while the waiters sleep: under a burst of reveals the writes went
through at a fraction of their rate and a bystander's reveal waited 0.5-0.75 s (issue 28).
Only the few writers of other processes (gunicorn's workers) still meet SQLite's wait.

PostgreSQL needs none of this: reads take no locks, writers lock the rows they change.
"""

from __future__ import annotations

import contextlib
import contextvars
import logging
import threading
from collections.abc import Iterator

from flask import Flask, current_app, has_request_context, request
from sqlalchemy import event
from sqlalchemy.engine import Connection, Engine

from app.extensions import db

log = logging.getLogger(__name__)

SAFE_METHODS = frozenset({"GET", "HEAD", "OPTIONS"})
_reading: contextvars.ContextVar[bool] = contextvars.ContextVar("reading", default=False)
BUSY_TIMEOUT_MS = 30_000  # SQLite's wait for another process's writer
WRITER_WAIT_SECONDS = 30.0  # the wait for this process's writer turn


class _Writer:
    """This process's writers of one SQLite file, one at a time, handed over at once.

    A connection takes it before ``BEGIN IMMEDIATE`` (flagged in its pool record's ``info``)
    and gives it back when its transaction ends, by commit or rollback (the dialect's
    ``do_commit``/``do_rollback``, which the pool's reset on check-in calls too) or when the
    connection is invalidated. A writer that cannot have it within ``WRITER_WAIT_SECONDS``
    goes on without it, to SQLite's own wait (which then refuses with "database is locked").
    """

    def __init__(self) -> None:
        self.lock = threading.Lock()

    def take(self, fairy) -> None:
        if not fairy.info.get("mindfirl_writer"):
            fairy.info["mindfirl_writer"] = self.lock.acquire(timeout=WRITER_WAIT_SECONDS)

    def give_back(self, info: dict | None) -> None:
        if info is not None and info.pop("mindfirl_writer", False):
            self.lock.release()


def _info(fairy) -> dict | None:
    """A pooled connection's ``info`` (None for the engine's first-connect probe, which has
    none and never holds the turn)."""
    try:
        return fairy.info
    except NotImplementedError:
        return None


def install_engine_hooks() -> None:
    """Give every SQLite engine foreign keys, WAL and writer-serialising transactions."""
    for engine in db.engines.values():
        if engine.dialect.name == "sqlite" and not getattr(engine, "_mindfirl_hooks", False):
            _hook_sqlite(engine)
            engine._mindfirl_hooks = True


def reads_first(view):
    """Mark a view whose transaction begins as a read and calls :func:`begin_write` itself."""
    view.mindfirl_reads_first = True
    return view


@contextlib.contextmanager
def reads_only() -> Iterator[None]:
    """Begin this thread's transactions as reads (``BEGIN``, no write lock) while inside."""
    token = _reading.set(True)
    try:
        yield
    finally:
        _reading.reset(token)


def _deferred() -> bool:
    """Whether the transaction beginning now is a read (see the module docstring)."""
    if _reading.get():
        return True
    if not has_request_context():
        return False
    if request.method in SAFE_METHODS:
        return True
    view = current_app.view_functions.get(request.endpoint) if request.endpoint else None
    return bool(getattr(view, "mindfirl_reads_first", False))


def begin_write(connection: Connection) -> None:
    """Hold the write lock from here to the end of the transaction (SQLite; no-op elsewhere).

    In a deferred transaction that has written nothing yet, the read snapshot ends and a new
    transaction begins ``IMMEDIATE``: what was read before must be checked again (the reveal
    compares the assignment's ``version``). A transaction that has written already holds the
    lock and goes on unchanged.
    """
    if connection.dialect.name != "sqlite":
        return
    info = connection.info
    if info.get("mindfirl_immediate", True):
        return
    raw = connection.connection.dbapi_connection
    if raw.total_changes == info.get("mindfirl_changes"):
        connection.exec_driver_sql("COMMIT")
        _begin_immediate(connection)
    info["mindfirl_immediate"] = True


def _begin_immediate(connection: Connection) -> None:
    """Take this process's writer turn, then SQLite's write lock."""
    fairy = connection.connection
    writer = connection.engine._mindfirl_writer
    writer.take(fairy)
    try:
        connection.exec_driver_sql("BEGIN IMMEDIATE")
    except BaseException:
        writer.give_back(fairy.info)
        raise


def _hook_sqlite(engine: Engine) -> None:
    writer = engine._mindfirl_writer = _Writer()
    dialect = engine.dialect  # an engine's own; its pool resets connections through it too
    commit, rollback = dialect.do_commit, dialect.do_rollback

    def do_commit(fairy) -> None:
        try:
            commit(fairy)
        finally:
            writer.give_back(_info(fairy))

    def do_rollback(fairy) -> None:
        try:
            rollback(fairy)
        finally:
            writer.give_back(_info(fairy))

    dialect.do_commit, dialect.do_rollback = do_commit, do_rollback

    @event.listens_for(engine, "invalidate")
    def _on_invalidate(_dbapi_connection, record, _exception):
        writer.give_back(record.info)

    @event.listens_for(engine, "checkin")
    def _on_checkin(_dbapi_connection, record):
        writer.give_back(record.info)  # after the pool's reset: nothing may keep the turn

    @event.listens_for(engine, "connect")
    def _on_connect(dbapi_connection, _record):
        dbapi_connection.isolation_level = None  # we issue BEGIN ourselves
        cursor = dbapi_connection.cursor()
        cursor.execute("PRAGMA foreign_keys=ON")
        cursor.execute(f"PRAGMA busy_timeout={BUSY_TIMEOUT_MS}")
        # What any statement deletes is overwritten with zeros, not left in free space (the
        # default of some builds only); a close-out's VACUUM does the rest (custody.erasure).
        cursor.execute("PRAGMA secure_delete=ON")
        if engine.url.database not in (None, "", ":memory:"):
            cursor.execute("PRAGMA journal_mode=WAL")
        cursor.close()

    @event.listens_for(engine, "begin")
    def _on_begin(conn):
        deferred = _deferred()
        if deferred:
            conn.exec_driver_sql("BEGIN")
        else:
            _begin_immediate(conn)
        conn.info["mindfirl_immediate"] = not deferred
        conn.info["mindfirl_changes"] = conn.connection.dbapi_connection.total_changes


def upgrade_embedded_database(app: Flask) -> None:
    """Bring the embedded (SQLite) database to the newest migration on start."""
    from flask_migrate import upgrade

    with app.app_context():
        upgrade()
    log.info("database upgraded to the newest revision")


def pg_rows(
    connection: Connection, sql: str, params: dict, row_factory=None, *, binary: bool = False
) -> list:
    """The rows of ``sql`` (compiled for psycopg) run on the connection's own psycopg cursor;
    ``binary``: results in the binary protocol (a large ``bytea`` as it is, not hex text).

    For the few statements run on every request (the reveal's read and charge): SQLAlchemy's
    result wrapping builds its column metadata again on every call of a driver-level
    statement, which cost more than the statement's round trip. A lost connection is
    invalidated as SQLAlchemy would, so the pool does not hand it out again.
    """
    raw = connection.connection.dbapi_connection
    options = {"row_factory": row_factory} if row_factory else {}
    try:
        with raw.cursor(binary=binary, **options) as cursor:
            cursor.execute(sql, params)
            return cursor.fetchall()
    except connection.dialect.loaded_dbapi.OperationalError:
        connection.invalidate()
        raise
