"""Reads and writes of a million rows: ``COPY`` on PostgreSQL, integer arrays, a big page cache.

Everything here works in the session's transaction and leaves committing to the caller. A
refused row's values stay out of every error (as SQLAlchemy's ``hide_parameters``).
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable, Mapping
from contextlib import contextmanager
from itertools import chain

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
from sqlalchemy import inspect
from sqlalchemy.engine import Connection
from sqlalchemy.exc import DBAPIError

from app.extensions import db

__all__ = [
    "BULK_CACHE_KIB",
    "analyze",
    "big_cache",
    "int_table",
    "write_columns",
    "write_int_rows",
    "write_numbered",
    "write_rows",
]

#: SQLite's page cache during a bulk write (KiB, as ``PRAGMA cache_size`` takes a negative
#: value): the default 2 MB makes every insert into a big index of random keys (a project's
#: unique pairs) read its pages from the file again.
BULK_CACHE_KIB = 512 * 1024
#: Rows per SQLite ``INSERT … VALUES (…), (…), …``: what SQLite sets up per execution is then
#: paid once a statement, not once a row (with the pairs' checks of the time, one-row
#: ``executemany`` of a million pairs took ~13 µs a row, 1,000-row statements 6.6 µs:
#: ``bench/RESULTS.md``).
ROWS_PER_STATEMENT = 1000


def write_rows(model, columns: tuple[str, ...], rows) -> None:
    """Insert ``rows`` (tuples in ``columns`` order) into ``model``'s table, fast, in the
    session's transaction: ``COPY … FROM STDIN`` on PostgreSQL (psycopg 3's
    ``cursor.copy``), one DBAPI ``executemany`` elsewhere."""
    if not isinstance(rows, list):
        rows = list(rows)
    if not rows:
        return
    connection = _connection_of(model)
    if connection.dialect.name == "postgresql":

        def feed(copy) -> None:
            for row in rows:
                copy.write_row(row)

        _copy(connection, model, columns, feed)
        return
    if connection.dialect.name == "sqlite":
        flat = list(chain.from_iterable(rows))
        _insert_sqlite(connection, model, columns, ("?",) * len(columns), flat, len(rows))
        return
    table = model.__table__.name
    quoted = ", ".join(f'"{c}"' for c in columns)
    marks = ", ".join("?" if connection.dialect.paramstyle == "qmark" else "%s" for _ in columns)
    connection.exec_driver_sql(f"INSERT INTO {table} ({quoted}) VALUES ({marks})", rows)


def write_int_rows(model, columns: tuple[str, ...], table) -> None:
    """Insert the rows of an integer numpy array ``table`` (``columns`` in order), as
    :func:`write_rows` does, without a Python tuple per row on PostgreSQL: the ``COPY`` text
    is made by numpy and sent in one piece (psycopg's ``write_row`` costs ~8 µs a row)."""
    table = np.asarray(table, dtype=np.int64)
    if not len(table):
        return
    connection = _connection_of(model)
    if connection.dialect.name != "postgresql":
        write_rows(model, columns, list(map(tuple, table.tolist())))
        return
    text = "\n".join(map("\t".join, table.astype(str).tolist())) + "\n"
    _copy(connection, model, columns, lambda copy: copy.write(text))


def write_numbered(model, columns: tuple[str, str, str], key: int, values, start: int = 0) -> None:
    """Insert the rows ``(key, values[i], start + i)`` (integers; ``columns`` in that order):
    an assignment's pairs and their positions.

    One ``INSERT … SELECT`` that makes the rows in the database from the values sent once: on
    SQLite over ``json_each`` of one JSON array (its ``key`` is the position; a million rows:
    ~4.4 s by ``executemany`` to ~1.5 s), on PostgreSQL over ``unnest`` of one ``bigint[]``
    ``WITH ORDINALITY`` written as one array literal (the ``COPY`` text of
    :func:`write_int_rows` cost ~5 s of numpy strings a million rows, psycopg's list adapter
    ~2.8 s). No Python tuple per row either way.
    """
    values = np.asarray(values, dtype=np.int64)
    if not len(values):
        return
    connection = _connection_of(model)
    quoted = ", ".join(f'"{c}"' for c in columns)
    insert = f"INSERT INTO {model.__table__.name} ({quoted}) "
    listed = ",".join(map(str, values.tolist()))  # one string: no adapter call per value
    if connection.dialect.name == "sqlite":
        select = "SELECT ?, value, key + ? FROM json_each(?)"
        connection.exec_driver_sql(insert + select, (int(key), int(start), f"[{listed}]"))
    elif connection.dialect.name == "postgresql":
        select = "SELECT %s, v, o - 1 + %s FROM unnest(%s::bigint[]) WITH ORDINALITY AS t(v, o)"
        connection.exec_driver_sql(insert + select, (int(key), int(start), f"{{{listed}}}"))
    else:
        positions = np.arange(start, start + len(values), dtype=np.int64)
        keys = np.full(len(values), key, dtype=np.int64)
        write_int_rows(model, columns, np.column_stack([keys, values, positions]))


def write_columns(model, columns: Mapping[str, object], n: int) -> None:
    """Insert ``n`` rows given column by column, as :func:`write_rows` does.

    A column is a numpy array (floats: NaN and ±inf are stored as NULL), a list or object
    array (``None`` is NULL), or one plain value for every row. No per-value Python call:
    SQLite's parameters are interleaved from ``tolist()`` columns by slice assignment (a value
    for every row is a literal of the statement, not a parameter) and sent
    :data:`ROWS_PER_STATEMENT` rows a statement; PostgreSQL's ``COPY`` text is made by Arrow's
    kernels (floats in their shortest round-trip form) and sent in one piece.
    """
    if not n:
        return
    connection = _connection_of(model)
    names = tuple(columns)
    if connection.dialect.name == "postgresql":
        text = _copy_text([columns[c] for c in names], n)
        _copy(connection, model, names, lambda copy: copy.write(text))
        return
    fixed = {c: _literal(v) for c, v in columns.items() if _literal(v) is not None}
    varying = [c for c in names if c not in fixed]
    flat: list = [None] * (n * len(varying))
    for j, name in enumerate(varying):  # row i's parameters are flat[i·k : (i+1)·k]
        flat[j :: len(varying)] = _python(columns[name], n)
    marks = tuple(fixed.get(c, "?") for c in names)
    _insert_sqlite(connection, model, names, marks, flat, n)


def _insert_sqlite(connection: Connection, model, names, marks, flat: list, n: int) -> None:
    """Insert ``n`` rows into ``model``'s table on SQLite: ``marks`` is each row's value
    expressions (``?`` or a literal), ``flat`` every row's parameters one after the other.
    ``executemany`` of statements of :data:`ROWS_PER_STATEMENT` rows (fewer when that many
    would pass SQLite's limit of parameters), then one of the rest."""
    k = marks.count("?")
    limit = connection.connection.driver_connection.getlimit(sqlite3.SQLITE_LIMIT_VARIABLE_NUMBER)
    per = max(1, min(ROWS_PER_STATEMENT, limit // max(k, 1)))
    quoted = ", ".join(f'"{c}"' for c in names)
    row = "(" + ", ".join(marks) + ")"
    head = f"INSERT INTO {model.__table__.name} ({quoted}) VALUES "
    whole, rest = divmod(n, per)
    if whole:
        size = per * k
        batches = [tuple(flat[i * size : (i + 1) * size]) for i in range(whole)]
        connection.exec_driver_sql(head + ", ".join([row] * per), batches)
    if rest:
        connection.exec_driver_sql(head + ", ".join([row] * rest), tuple(flat[whole * per * k :]))


def _literal(value) -> str | None:
    """SQLite's literal of a value shared by every row (an int, ``None``, a string), else
    ``None``: fewer parameters to bind per row (~15 % of a million-row insert)."""
    if value is None:
        return "NULL"
    if isinstance(value, int | np.integer):
        return str(int(value))
    if isinstance(value, str):
        return "'" + value.replace("'", "''") + "'"
    return None


def _python(column, n: int) -> list:
    """A column as a list of ``n`` Python values (one value: repeated)."""
    if isinstance(column, np.ndarray):
        if column.dtype.kind == "f":
            finite = np.isfinite(column)
            return column.tolist() if finite.all() else np.where(finite, column, None).tolist()
        return column.tolist()
    if isinstance(column, list | tuple):
        return list(column)
    return [column] * n


def _copy_text(columns: list, n: int) -> memoryview:
    """The ``COPY … FROM STDIN`` text format of ``n`` rows: tab-separated, ``\\N`` for NULL."""
    texts = [_copy_strings(column, n) for column in columns]
    texts[-1] = pc.binary_join_element_wise(texts[-1], "\n", "")
    rows = pc.binary_join_element_wise(*texts, "\t")
    if isinstance(rows, pa.ChunkedArray):
        rows = rows.combine_chunks()
    rows = rows.cast(pa.large_string())  # 64-bit offsets: a chunk may pass 2 GiB of text
    offsets = np.frombuffer(rows.buffers()[1], dtype=np.int64)[rows.offset : rows.offset + n + 1]
    return memoryview(rows.buffers()[2])[offsets[0] : offsets[-1]]


def _copy_strings(column, n: int) -> pa.Array | pa.Scalar:
    """One column as ``COPY`` text fields (escaped; ``\\N`` for NULL); a value for every
    row stays one scalar, which the joining kernel broadcasts."""
    if isinstance(column, np.ndarray) and column.dtype.kind in "iub":
        return pc.cast(pa.array(column.astype(np.int64)), pa.string())
    if isinstance(column, np.ndarray) and column.dtype.kind == "f":
        values = pa.array(column, mask=~np.isfinite(column))
        return pc.fill_null(pc.cast(values, pa.string()), "\\N")
    if not isinstance(column, np.ndarray | list | tuple):
        return pa.scalar("\\N" if column is None else _escape(pa.array([str(column)]))[0].as_py())
    values = pa.array(column, pa.string()) if len(column) else pa.array([], pa.string())
    return pc.fill_null(_escape(values), "\\N")


def _escape(values: pa.Array) -> pa.Array:
    """Backslash, tab, newline and carriage return escaped as ``COPY`` text wants them."""
    for char, escaped in (("\\", "\\\\"), ("\t", "\\t"), ("\n", "\\n"), ("\r", "\\r")):
        values = pc.replace_substring(values, char, escaped)
    return values


def analyze(model) -> None:
    """Sample ``model``'s table into PostgreSQL's planner statistics now, after a bulk load in
    this transaction (elsewhere nothing). Autovacuum would, a minute or more later: until
    then a fresh project's pairs are planned as a few rows (the close-out zip of FEBRL4's
    160,856 pairs took 2.4 s instead of 2.0 s, its linked export 0.48 instead of 0.21 s). Never
    for a table of uploaded values' columns unless those are kept out (``no_statistics``)."""
    connection = _connection_of(model)
    if connection.dialect.name == "postgresql":
        connection.exec_driver_sql(f"ANALYZE {model.__table__.name}")


def _connection_of(model) -> Connection:
    """The session's connection to the database holding ``model``'s table (either bind)."""
    return db.session.connection(bind_arguments={"mapper": inspect(model)})


def _copy(connection: Connection, model, columns: tuple[str, ...], feed: Callable) -> None:
    """``COPY`` into ``model``'s table what ``feed(copy)`` writes; an error without values."""
    quoted = ", ".join(f'"{c}"' for c in columns)
    statement = f"COPY {model.__table__.name} ({quoted}) FROM STDIN"
    raw = connection.connection.driver_connection
    try:
        with raw.cursor() as cursor, cursor.copy(statement) as copy:
            feed(copy)
    except connection.dialect.dbapi.Error as exc:
        raise DBAPIError.instance(
            statement, None, exc, connection.dialect.dbapi.Error,
            hide_parameters=True, dialect=connection.dialect,
        ) from None  # fmt: skip


def int_table(query, width: int) -> np.ndarray:
    """The rows of ``query`` (``width`` integer columns) as an int64 numpy array ``(n, width)``.

    For reads of a million rows (a round's pairs, every record's count): the driver's tuples
    go straight into numpy, without SQLAlchemy's row objects (numpy probing a ``Row`` for
    the array protocol cost more than the query).
    """
    result = db.session.connection().execute(query)
    try:
        rows = result.cursor.fetchall()
    finally:
        result.close()
    if not rows:
        return np.zeros((0, width), dtype=np.int64)
    return np.array(rows, dtype=np.int64).reshape(-1, width)


@contextmanager
def big_cache():
    """A large SQLite page cache on the session's connection for a bulk write, then the
    connection's own again (a pooled connection keeps no 512 MB cache). No-op elsewhere."""
    connection = db.session.connection()
    if connection.dialect.name != "sqlite":
        yield
        return
    before = connection.exec_driver_sql("PRAGMA cache_size").scalar()
    connection.exec_driver_sql(f"PRAGMA cache_size = -{BULK_CACHE_KIB}")
    try:
        yield
    finally:
        connection.exec_driver_sql(f"PRAGMA cache_size = {int(before)}")
