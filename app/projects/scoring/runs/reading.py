"""Read a source's records out of the database as Arrow columns, a batch at a time.

Each batch is one query (keyset on the source's positions, so no cursor stays open while a
job commits its progress) whose answer is a single text: the database writes one JSON line
per record — ``{"p": position, "e": file id, "v": the stored values}`` — and joins them
(SQLite's ``group_concat``, PostgreSQL's ``string_agg``), and Arrow's JSON reader turns that
text into columns. No Python object is made per record or per value: the database copies
the stored JSON documents without parsing them, Arrow parses them in C++, and only the
identifying attributes named by the caller become columns (``values`` holds nothing else;
the vault is another database, never read here).

The stored documents are :func:`json.dumps` output (:mod:`app.projects.lifecycle.bulk`, or
SQLAlchemy's ``JSON`` type): one line each, as the reader needs. A value is a string or
``null``; an empty string is read as missing, as the scoring job always read it.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import TypeVar

import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.json as pajson
from sqlalchemy import text

from app.extensions import db
from app.projects.blocking.columns import blank_to_null

__all__ = ["Columns", "read_columns"]

_LINES = {
    "sqlite": """
        SELECT group_concat(line, char(10)), max(position), count(*) FROM (
            SELECT position, '{"p":' || position || ',"e":' || json_quote(external_id)
                || ',"v":' || coalesce("values", 'null') || '}' AS line
            FROM records WHERE source_id = :source AND position > :after
            ORDER BY position LIMIT :size
        ) AS batch
    """,
    "postgresql": """
        SELECT string_agg(line, E'\\n'), max(position), count(*) FROM (
            SELECT position, '{"p":' || position || ',"e":' || to_json(external_id)::text
                || ',"v":' || coalesce("values"::text, 'null') || '}' AS line
            FROM records WHERE source_id = :source AND position > :after
            ORDER BY position LIMIT :size
        ) AS batch
    """,
}


T = TypeVar("T")


@dataclass(frozen=True)
class Columns:
    """One batch of a source's records, in file order."""

    positions: pa.Array  # int64
    ids: pa.Array  # string: the records' ids in their file
    values: dict[str, pa.Array]  # attribute -> its stored values (string, missing as null)

    def __len__(self) -> int:
        return len(self.positions)


def _same(columns: Columns) -> Columns:
    return columns


def read_columns(
    source_id: int, names: Sequence[str], size: int, then: Callable[[Columns], T] = _same
) -> Iterator[T]:
    """``then`` of each batch of the records of source ``source_id`` (``size`` records:
    their positions, ids, and the stored values of the attributes ``names``).

    The database is queried from the caller's thread (its session) and the answer parsed
    and given to ``then`` in one other thread, so the next batch's query runs while the
    last one is parsed: Arrow and the database's driver both release the GIL.
    """
    dialect = db.session.get_bind().dialect.name
    sql = text(_LINES["postgresql" if dialect == "postgresql" else "sqlite"])
    schema = pa.schema(
        [
            ("p", pa.int64()),
            ("e", pa.string()),
            ("v", pa.struct([(name, pa.string()) for name in names])),
        ]
    )

    def convert(lines: str) -> T:
        return then(_parse(lines.encode("utf-8"), schema, names))

    with ThreadPoolExecutor(1, thread_name_prefix="scoring-read") as pool:
        after, pending, more = -1, None, True
        while more:
            lines, last, count = db.session.execute(
                sql, {"source": source_id, "after": after, "size": size}
            ).one()
            after, more = last, count == size
            parsed = pool.submit(convert, lines) if count else None
            if pending is not None:
                yield pending.result()
            pending = parsed
        if pending is not None:
            yield pending.result()


def _parse(lines: bytes, schema: pa.Schema, names: Sequence[str]) -> Columns:
    table = pajson.read_json(
        pa.BufferReader(lines),
        read_options=pajson.ReadOptions(block_size=max(1 << 20, len(lines) + 1)),
        parse_options=pajson.ParseOptions(
            explicit_schema=schema, unexpected_field_behavior="ignore"
        ),
    )
    positions = table.column("p").combine_chunks()
    if len(positions) > 1 and not pc.all(pc.greater(positions[1:], positions[:-1])).as_py():
        table = table.sort_by("p")  # an aggregate's order is the query's in practice only
        positions = table.column("p").combine_chunks()
    # flatten: a document that is JSON null has every value missing
    stored = table.column("v").combine_chunks().flatten()
    values = {name: blank_to_null(column) for name, column in zip(names, stored, strict=True)}
    return Columns(positions, table.column("e").combine_chunks(), values)
