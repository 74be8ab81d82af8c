"""Write many records and their vault rows fast, inside the session's transaction.

PostgreSQL gets ``COPY … FROM STDIN`` (psycopg 3's ``cursor.copy``); any other database one
DBAPI ``executemany`` per batch. Both go through the connection the session already holds
for each bind, so the rows commit or roll back with everything else the caller wrote. The
JSON columns are serialised here with :func:`json.dumps`, as SQLAlchemy's ``JSON`` type
would, and read back through it unchanged.
"""

from __future__ import annotations

import json
import os
from collections.abc import Sequence

from sqlalchemy import inspect
from sqlalchemy.exc import DBAPIError

from app.extensions import db
from app.models import Record, VaultRecord

__all__ = ["insert_records", "new_pseudonyms"]

_RECORD_COLUMNS = ("project_id", "source_id", "external_id", "pseudonym", "position", "values")
_VAULT_COLUMNS = ("pseudonym", "project_id", "values")


def new_pseudonyms(count: int) -> list[str]:
    """``count`` random 128-bit pseudonyms (as :func:`app.models.record.new_pseudonym`)."""
    raw = os.urandom(16 * count).hex()
    return [raw[i : i + 32] for i in range(0, 32 * count, 32)]


def insert_records(
    project_id: int,
    source_id: int,
    external_ids: Sequence[str],
    identifying: Sequence[dict],
    sensitive: Sequence[dict] | None,
    *,
    offset: int = 0,
) -> None:
    """Insert one batch of records (positions from ``offset``) and, if given, vault rows."""
    pseudonyms = new_pseudonyms(len(external_ids))
    dumps = json.dumps
    _write(
        Record,
        _RECORD_COLUMNS,
        [
            (project_id, source_id, rid, p, offset + i, dumps(values))
            for i, (rid, p, values) in enumerate(
                zip(external_ids, pseudonyms, identifying, strict=True)
            )
        ],
    )
    if sensitive is not None:
        _write(
            VaultRecord,
            _VAULT_COLUMNS,
            [
                (p, project_id, dumps(values))
                for p, values in zip(pseudonyms, sensitive, strict=True)
            ],
        )


def _write(model, columns: tuple[str, ...], rows: list[tuple]) -> None:
    if not rows:
        return
    connection = db.session.connection(bind_arguments={"mapper": inspect(model)})
    table = model.__table__.name
    quoted = ", ".join(f'"{c}"' for c in columns)
    if connection.dialect.name == "postgresql":
        raw = connection.connection.driver_connection
        statement = f"COPY {table} ({quoted}) FROM STDIN"
        try:
            with raw.cursor() as cursor, cursor.copy(statement) as copy:
                for row in rows:
                    copy.write_row(row)
        except connection.dialect.dbapi.Error as exc:
            # As SQLAlchemy wraps its own statements' errors (and error handlers expect):
            # the row values stay out of the message.
            raise DBAPIError.instance(
                statement, None, exc, connection.dialect.dbapi.Error,
                hide_parameters=True, dialect=connection.dialect,
            ) from None  # fmt: skip
        return
    marks = ", ".join("?" if connection.dialect.paramstyle == "qmark" else "%s" for _ in columns)
    connection.exec_driver_sql(f"INSERT INTO {table} ({quoted}) VALUES ({marks})", rows)
