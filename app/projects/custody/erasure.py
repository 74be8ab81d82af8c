"""After a close-out commits: make what it deleted unreadable in the database files too.

A deleted row is not gone from the disk. On SQLite it stays in the WAL (every earlier version
of its pages) and, even with ``secure_delete`` (on for every connection, :mod:`app.database`),
in the unallocated middle of a b-tree page that a rebalance rebuilt (seen in an index page).
So each SQLite file is rewritten by ``VACUUM`` and its WAL emptied by
``wal_checkpoint(TRUNCATE)``. On PostgreSQL the old row versions stay in the table and index
files after a plain ``VACUUM``; ``VACUUM FULL`` of the tables that held the values writes new
files and drops the old ones, once no transaction older than the close-out can still see them
(until then it would copy them too).

Each pass is recorded for every project it served (:class:`~app.models.StorageErasure`), with
what it did per database or why it waits (``pending``: a reader of an older state, a lock, a
full disk): ``flask projects close-due`` tries again. What lies beyond the application's reach
is recorded with it (:data:`BEYOND_REACH`; the operator's steps: ``docs/closeout.md``).

The close-out page runs the pass as a job (:mod:`.erasing`); the command line and the API run
it in turn.
"""

from __future__ import annotations

import re
import sqlite3
import time
from collections.abc import Sequence
from pathlib import Path

from flask import current_app
from sqlalchemy import func, select
from sqlalchemy.engine import Engine
from sqlalchemy.exc import SQLAlchemyError

from app.database import BUSY_TIMEOUT_MS
from app.extensions import db
from app.models import NameFrequency, Project, Record, SourceIndex, StorageErasure, VaultRecord

__all__ = [
    "BEYOND_REACH",
    "WAIT_SECONDS",
    "describe",
    "erase_storage",
    "latest_erasure",
    "pending_erasures",
]

#: The tables whose rows a close-out deletes or empties of values.
VALUE_TABLES = (Record, SourceIndex, NameFrequency, VaultRecord)
WAIT_SECONDS = 30.0  # CLOSEOUT_ERASE_WAIT_SECONDS: for older readers and locks to go
_POLL = 0.2
_KEPT = re.compile(r"(\d+) dead row versions cannot be removed yet")
_DISK = (
    "the file system's and the disk's freed blocks (a copy-on-write file system's old extents, "
    "an SSD's remapped cells): the application overwrites files, not the device; encrypt the "
    "disk to cover them"
)
BEYOND_REACH = {
    "sqlite": [
        "copies of the database files made before the close-out: backups, snapshots, replicas",
        _DISK,
    ],
    "postgresql": [
        "WAL segments (pg_wal) written before the close-out, until the server recycles and "
        "overwrites them",
        "the WAL archive (archive_command) and base backups made before the close-out",
        "standby servers' own WAL, and server log lines if statements are logged with "
        "their parameters",
        _DISK,
    ],
}


def erase_storage(project_ids: Sequence[int], each=None) -> StorageErasure | None:
    """Rewrite every database's value tables for the closed ``project_ids``; record the pass
    for each and commit. Run after the close-out's commit, outside any transaction.
    ``each(what, done, total)``, if given, is called before each database's rewrite."""
    if not project_ids:
        return None
    db.session.rollback()  # no snapshot of this session may hold the old state
    wait = float(current_app.config.get("CLOSEOUT_ERASE_WAIT_SECONDS", WAIT_SECONDS))
    databases, engines, passes = [], {}, {}
    for model in VALUE_TABLES:
        engine = db.session.get_bind(mapper=model.__mapper__)
        engines.setdefault(engine, []).append(model.__table__.name)
    for engine, tables in engines.items():
        key = engine.url.database if engine.dialect.name == "sqlite" else id(engine)
        passes.setdefault(key, (engine, tables))  # the vault in the main file: one pass
    for done, (engine, tables) in enumerate(passes.values()):
        if each is not None:
            each(_rewrite(engine, tables, wait), done, len(passes))
        if engine.dialect.name == "sqlite":
            databases.append(_sqlite(engine, wait))
        else:
            databases.append(_postgresql(engine, tables, wait))
    beyond = list({line: 1 for d in databases for line in BEYOND_REACH[d["engine"]]})
    detail = {"databases": databases, "beyond_reach": beyond}
    complete = not any("pending" in d for d in databases)
    rows = [StorageErasure(project_id=p, complete=complete, detail=detail) for p in project_ids]
    db.session.add_all(rows)
    db.session.commit()
    return rows[-1]


def _rewrite(engine: Engine, tables: list[str], wait: float) -> str:
    if engine.dialect.name == "sqlite":
        return f"VACUUM of {Path(engine.url.database or ':memory:').name} (the whole file)"
    return (
        f"VACUUM FULL of {', '.join(sorted(tables))} (once no transaction older than the "
        f"close-out runs: up to {wait:.0f} s)"
    )


def describe(erasure: StorageErasure | None) -> str:
    """One sentence for the manager: erased from the files, or what it waits for."""
    if erasure is not None and erasure.complete:
        steps = {step: 1 for d in erasure.detail["databases"] for step in d["done"]}
        return f"and erased from the database files ({', '.join(steps)})"
    waits = [d["pending"] for d in erasure.detail["databases"] if "pending" in d] if erasure else []
    why = "; ".join(waits) if waits else "the pass over the database files has not run"
    return f"but not yet erased from the database files: {why} (projects close-due tries again)"


def latest_erasure(project_id: int) -> StorageErasure | None:
    query = select(StorageErasure).where(StorageErasure.project_id == project_id)
    return db.session.scalars(query.order_by(StorageErasure.id.desc()).limit(1)).first()


def pending_erasures() -> list[int]:
    """Closed projects whose newest pass did not complete (or never ran: a crash between)."""
    newest = (
        select(StorageErasure.project_id, func.max(StorageErasure.id).label("id"))
        .group_by(StorageErasure.project_id)
        .subquery()
    )
    complete = (
        select(newest.c.project_id)
        .join(StorageErasure, StorageErasure.id == newest.c.id)
        .where(StorageErasure.complete)
    )
    query = select(Project.id).where(Project.closed_at.is_not(None), Project.id.not_in(complete))
    return list(db.session.scalars(query.order_by(Project.id)))


def _sqlite(engine: Engine, wait: float) -> dict:
    """``VACUUM`` then ``wal_checkpoint(TRUNCATE)`` on one file, on a raw pooled connection
    (no SQLAlchemy transaction: VACUUM cannot run inside one), in this process's writer turn."""
    if engine.url.database in (None, "", ":memory:"):
        return {"engine": "sqlite", "file": ":memory:", "done": ["nothing on disk"]}
    path = Path(engine.url.database)
    entry: dict = {"engine": "sqlite", "file": path.name}
    started = time.monotonic()
    writer = getattr(engine, "_mindfirl_writer", None)
    with engine.connect() as conn:
        fairy = conn.connection
        raw = fairy.dbapi_connection
        if writer is not None:
            writer.take(fairy)
        try:
            raw.execute("PRAGMA secure_delete = ON")
            raw.execute(f"PRAGMA busy_timeout = {int(wait * 1000)}")
            raw.execute("VACUUM")
            busy, _, _ = raw.execute("PRAGMA wal_checkpoint(TRUNCATE)").fetchone()
        except sqlite3.Error as exc:  # SQLite's own words: "database is locked", "disk is full"
            return {**entry, "pending": f"{type(exc).__name__}: {exc}"}
        finally:
            raw.execute(f"PRAGMA busy_timeout = {BUSY_TIMEOUT_MS}")
            if writer is not None:
                writer.give_back(fairy.info)
    wal = path.with_name(f"{path.name}-wal")
    if busy or (wal.exists() and wal.stat().st_size):
        return {
            **entry,
            "pending": "a connection still reads an older state of the file, so its WAL "
            "(which holds the deleted values) could not be emptied",
        }
    return {**entry, "done": ["VACUUM", "WAL truncated"], "seconds": _since(started)}


# What keeps VACUUM FULL from removing a row deleted before the horizon: a transaction of any
# database with an older xid (it is in every snapshot's running set, VACUUM's own too), a
# snapshot of this database older than it (or a standby's, through its walsender), a
# prepared transaction or a replication slot. And how many sessions this role cannot see:
# then VACUUM's own report (how many row versions it could not remove) decides.
_OLDER = """
WITH h AS (SELECT (CAST(%(horizon)s AS bigint) %% 4294967296)::text::xid AS x)
SELECT
  (SELECT count(*) FROM pg_stat_activity, h WHERE pid <> pg_backend_pid()
     AND (age(backend_xid) > age(h.x)
          OR ((datname = current_database() OR backend_type = 'walsender')
              AND age(backend_xmin) > age(h.x))))
  + (SELECT count(*) FROM pg_prepared_xacts, h WHERE age(transaction) > age(h.x))
  + (SELECT count(*) FROM pg_replication_slots, h
     WHERE age(xmin) > age(h.x) OR age(catalog_xmin) > age(h.x)),
  (SELECT count(*) FROM pg_stat_activity WHERE query = '<insufficient privilege>')
"""


def _postgresql(engine: Engine, tables: list[str], wait: float) -> dict:
    """``VACUUM (FULL)`` of ``tables`` once nothing older than now can see old rows; again
    while VACUUM reports rows it could not remove, up to ``wait`` seconds."""
    entry: dict = {"engine": "postgresql", "tables": sorted(tables)}
    started = time.monotonic()
    deadline = started + wait
    try:
        with engine.connect().execution_options(isolation_level="AUTOCOMMIT") as conn:
            horizon = conn.exec_driver_sql("SELECT pg_current_xact_id()::text").scalar()
            while True:
                older, hidden = conn.exec_driver_sql(_OLDER, {"horizon": horizon}).one()
                if older:
                    if time.monotonic() > deadline:
                        return {**entry, "pending": _older_reason(older)}
                    time.sleep(_POLL)
                    continue
                kept = _vacuum_full(conn, tables, wait)
                if kept == 0 or (kept is None and not hidden):
                    return {**entry, "done": ["VACUUM FULL"], "seconds": _since(started)}
                if kept is None:  # nothing to tell what it kept, nor every session seen
                    return {**entry, "pending": _UNVERIFIED.format(hidden=hidden)}
                if time.monotonic() > deadline:
                    return {**entry, "pending": f"{kept} old row version(s) still visible "
                            "to a transaction; VACUUM FULL kept them"}  # fmt: skip
                time.sleep(_POLL)
    except SQLAlchemyError as exc:  # a lock held past the wait, a full disk
        return {**entry, "pending": f"VACUUM FULL did not run: {type(exc.orig or exc).__name__}"}


def _vacuum_full(conn, tables: list[str], wait: float) -> int | None:
    """Run ``VACUUM (FULL, VERBOSE)``; the row versions it reports it could not remove (None:
    its report is in another language than English)."""
    notices: list[str] = []
    raw = conn.connection.dbapi_connection
    handler = lambda diagnostic: notices.append(diagnostic.message_detail or "")  # noqa: E731
    raw.add_notice_handler(handler)
    conn.exec_driver_sql(f"SET lock_timeout = {int(wait * 1000)}")
    try:
        conn.exec_driver_sql(f"VACUUM (FULL, VERBOSE) {', '.join(sorted(tables))}")
    finally:  # the pooled connection goes back as it came
        raw.remove_notice_handler(handler)
        conn.exec_driver_sql("RESET lock_timeout")
    counts = [int(m.group(1)) for n in notices if (m := _KEPT.search(n))]
    return sum(counts) if counts else None


def _older_reason(older: int) -> str:
    return (
        f"{older} transaction(s) or replication slot(s) older than the close-out still see "
        "the old rows; VACUUM FULL would keep them"
    )


_UNVERIFIED = (
    "VACUUM FULL ran, but whether it kept old row versions cannot be told: its report is not "
    "in English and {hidden} session(s) of other roles are hidden from the application "
    "(set lc_messages to English or grant it pg_read_all_stats)"
)


def _since(started: float) -> float:
    return round(time.monotonic() - started, 2)
