"""Column helpers shared by the models."""

from __future__ import annotations

import datetime as dt

from sqlalchemy import DateTime
from sqlalchemy.orm import Mapped, mapped_column


def utcnow() -> dt.datetime:
    return dt.datetime.now(dt.UTC)


class Timestamped:
    created_at: Mapped[dt.datetime] = mapped_column(DateTime(timezone=True), default=utcnow)


def forbid_updates(model: type) -> None:
    """Make ``model`` append-only at the ORM level: an UPDATE raises."""
    from sqlalchemy import event

    @event.listens_for(model, "before_update")
    def _refuse(_mapper, _connection, target):
        raise PermissionError(f"{type(target).__name__} rows are append-only")


def no_statistics(model: type, column: str) -> None:
    """Keep PostgreSQL from sampling ``column`` into ``pg_statistic`` (``ANALYZE``, autovacuum
    too, copies a column's common values there), for columns of uploaded values: a close-out
    rewrites its tables but cannot rewrite the catalog. The migration ``c9e2f4a7b1d8`` sets
    the same on existing databases."""
    _on_postgresql(model, column, "STATISTICS 0")


def uncompressed(model: type, column: str) -> None:
    """Store ``column`` out of line but uncompressed on PostgreSQL (``STORAGE EXTERNAL``), for
    a large binary the application reads whole: pglz spent ~1.3 s compressing a 35 MB stored
    index (200,000 records) that SQLite writes in a few milliseconds, and its reads paid the
    decompression. The migration ``b3e8d1f4a962`` sets the same on existing databases."""
    _on_postgresql(model, column, "STORAGE EXTERNAL")


def _on_postgresql(model: type, column: str, setting: str) -> None:
    """``ALTER COLUMN … SET setting`` on PostgreSQL once ``model``'s table is created."""
    from sqlalchemy import DDL, event

    table = model.__table__.name
    statement = DDL(f'ALTER TABLE {table} ALTER COLUMN "{column}" SET {setting}')
    event.listen(model.__table__, "after_create", statement.execute_if(dialect="postgresql"))
