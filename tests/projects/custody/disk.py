"""Read what is on the disk, byte for byte: the database files and every file under a folder.

On PostgreSQL these tests get a database of their own (:func:`own_database`): VACUUM FULL
keeps what a transaction older than it may see, and only that database's sessions count, so
other tests' open transactions in the shared test database do not hold it up.

SQLite: both database files and their ``-wal``/``-shm``. PostgreSQL: the files of every
relation of the test's schema (tables, indexes, TOAST) and of ``pg_statistic``, found by
``pg_relation_filepath`` under the server's data directory (the tests run as the postgres
superuser on this machine); a ``CHECKPOINT`` first writes what shared buffers hold. Under
``CI=true`` an unreadable data directory fails the test instead of skipping it.
"""

from __future__ import annotations

import os
import uuid
from pathlib import Path

import psycopg
import pytest
import sqlalchemy as sa

from app.extensions import db
from tests.conftest import PG_URL, _pg_url

_RELATIONS = """
SELECT pg_relation_filepath(c.oid) FROM pg_class c
WHERE c.relnamespace = current_schema()::regnamespace
   OR c.oid IN (SELECT reltoastrelid FROM pg_class
                WHERE relnamespace = current_schema()::regnamespace
                   OR oid = 'pg_catalog.pg_statistic'::regclass)
   OR c.oid IN (SELECT indexrelid FROM pg_index WHERE indrelid IN (
                SELECT reltoastrelid FROM pg_class
                WHERE relnamespace = current_schema()::regnamespace))
   OR c.oid = 'pg_catalog.pg_statistic'::regclass
"""


def database_files() -> list[Path]:
    """The files the app's databases keep on disk, as they are now (call in an app context)."""
    engine = db.engines[None]
    if engine.dialect.name == "sqlite":
        files = []
        for bind in db.engines.values():
            main = Path(bind.url.database)
            files += [
                p for p in (main, *(Path(f"{main}-{s}") for s in ("wal", "shm"))) if p.exists()
            ]
        return sorted(set(files))
    with engine.connect().execution_options(isolation_level="AUTOCOMMIT") as conn:
        conn.exec_driver_sql("CHECKPOINT")
        root = Path(conn.exec_driver_sql("SHOW data_directory").scalar())
        relations = [r for (r,) in conn.exec_driver_sql(_RELATIONS) if r]
    if not os.access(root, os.R_OK | os.X_OK):
        message = f"PostgreSQL's data directory {root} is not readable here"
        if os.environ.get("CI") == "true":
            pytest.fail(message)
        pytest.skip(message)
    files = []
    for relation in relations:
        path = root / relation
        files += [path, *path.parent.glob(f"{path.name}.*")]  # segments past 1 GB, forks
    return sorted(p for p in files if p.is_file())


def values_on_disk(values, *folders: Path) -> dict[str, list[str]]:
    """``{file: values found}`` over the database files and every file under ``folders``."""
    wanted = {v: v.lower().encode() for v in values}
    files = database_files()
    for folder in folders:
        files += [p for p in Path(folder).rglob("*") if p.is_file() and p not in files]
    found = {}
    for path in files:
        data = path.read_bytes().lower()
        hits = sorted(v for v, raw in wanted.items() if raw in data)
        if hits:
            found[str(path)] = hits
    return found


def stored_values(project_id: int, *, at_least: int = 6) -> list[str]:
    """Every value the project stored (identifying, vault, name counts) as stored, of at
    least ``at_least`` characters (shorter ones occur in unrelated bytes)."""
    from app.models import NameFrequency, Record, VaultRecord

    rows = [
        *db.session.scalars(sa.select(Record.values).where(Record.project_id == project_id)),
        *db.session.scalars(
            sa.select(VaultRecord.values).where(VaultRecord.project_id == project_id)
        ),
    ]
    values = {str(v) for row in rows for v in row.values() if v is not None}
    values |= set(
        db.session.scalars(
            sa.select(NameFrequency.name).where(NameFrequency.project_id == project_id)
        )
    )
    return sorted(v for v in values if len(v) >= at_least)


def own_database(tmp_path: Path):
    """``database_config`` with, on PostgreSQL, a database of its own (dropped after)."""
    if not PG_URL:
        yield {
            "SQLALCHEMY_DATABASE_URI": f"sqlite:///{tmp_path / 'main.sqlite'}",
            "VAULT_DATABASE_URI": f"sqlite:///{tmp_path / 'vault.sqlite'}",
        }
        return
    name = f"erasure_{uuid.uuid4().hex[:12]}"
    admin = sa.create_engine(_pg_url(PG_URL), isolation_level="AUTOCOMMIT")
    with admin.connect() as conn:
        conn.exec_driver_sql(f'CREATE DATABASE "{name}"')
    url = sa.make_url(_pg_url(PG_URL)).set(database=name).render_as_string(hide_password=False)
    try:
        yield {"SQLALCHEMY_DATABASE_URI": url, "VAULT_DATABASE_URI": url}
    finally:
        with admin.connect() as conn:
            conn.exec_driver_sql(f'DROP DATABASE "{name}" WITH (FORCE)')
        admin.dispose()


def pg_connect(autocommit: bool = False) -> psycopg.Connection:
    """A connection of another session to the app's PostgreSQL database (in an app context)."""
    url = db.engines[None].url.set(drivername="postgresql")
    return psycopg.connect(url.render_as_string(hide_password=False), autocommit=autocommit)
