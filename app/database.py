"""Database life cycle: engine hooks and the embedded database's self-upgrade."""

from __future__ import annotations

import logging

from flask import Flask
from sqlalchemy import event
from sqlalchemy.engine import Engine

from app.extensions import db

log = logging.getLogger(__name__)


def install_engine_hooks() -> None:
    """Give every SQLite engine foreign keys, WAL and writer-serialising transactions.

    SQLite takes its write lock lazily, so two transactions that both read then write can
    deadlock or lose an update. ``BEGIN IMMEDIATE`` takes the lock at the start, which is
    what the budget check in ``reveal_cell`` needs (the PostgreSQL path uses a row lock).
    """
    for engine in db.engines.values():
        if engine.dialect.name == "sqlite" and not getattr(engine, "_mindfirl_hooks", False):
            _hook_sqlite(engine)
            engine._mindfirl_hooks = True


def _hook_sqlite(engine: Engine) -> None:
    @event.listens_for(engine, "connect")
    def _on_connect(dbapi_connection, _record):
        dbapi_connection.isolation_level = None  # we issue BEGIN ourselves
        cursor = dbapi_connection.cursor()
        cursor.execute("PRAGMA foreign_keys=ON")
        cursor.execute("PRAGMA busy_timeout=30000")
        if engine.url.database not in (None, "", ":memory:"):
            cursor.execute("PRAGMA journal_mode=WAL")
        cursor.close()

    @event.listens_for(engine, "begin")
    def _on_begin(conn):
        conn.exec_driver_sql("BEGIN IMMEDIATE")


def upgrade_embedded_database(app: Flask) -> None:
    """Bring the embedded (SQLite) database to the newest migration on start."""
    from flask_migrate import upgrade

    with app.app_context():
        upgrade()
    log.info("database upgraded to the newest revision")
