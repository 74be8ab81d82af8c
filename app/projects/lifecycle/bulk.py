"""Write many records and their vault rows fast, inside the session's transaction.

PostgreSQL gets ``COPY … FROM STDIN`` (psycopg 3's ``cursor.copy``); any other database one
DBAPI ``executemany`` per batch. Both go through the connection the session already holds
for each bind, so the rows commit or roll back with everything else the caller wrote. The
JSON columns are serialised here exactly as :func:`json.dumps` (SQLAlchemy's ``JSON`` type)
would, and read back through it unchanged; a batch of flat string dicts with the same keys
is encoded column by column (one C call per value instead of one ``dumps`` per row), and an
import's batch, already column-wise, is encoded without building a dict per row
(:func:`json_columns`).

Each record's ``characters`` (what the characters meter counts of it) is counted here from the
same values, over the project's identifying attributes: every path that stores records
comes through :func:`insert_records` or :func:`insert_columns`.
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping, Sequence
from json.encoder import encode_basestring_ascii
from operator import itemgetter

from sqlalchemy import select

from app.bulk import write_rows
from app.core.disclosure import AttributeType, column_characters
from app.extensions import db
from app.models import ProjectAttribute, Record, VaultRecord

__all__ = [
    "CHUNK",
    "insert_columns",
    "insert_record_rows",
    "insert_records",
    "json_columns",
    "json_rows",
    "new_pseudonyms",
]

CHUNK = 5_000  # rows a statement writes (records here, pairs in create.py and pair files)


_RECORD_COLUMNS = (
    "project_id", "source_id", "external_id", "pseudonym", "position", "values", "characters",
)  # fmt: skip
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
    hidden = json_rows(sensitive) if sensitive is not None else None
    kinds = _identifying_kinds(project_id)
    columns = {name: [row.get(name) for row in identifying] for name in kinds}
    chars = _characters(columns, kinds, len(external_ids))
    _insert(project_id, source_id, external_ids, json_rows(identifying), chars, hidden, offset)


def insert_record_rows(
    project_id, source_id, rows, attributes, *, offset: int = 0, with_ids: bool = True
) -> dict[str, int]:
    """Insert records and their vault rows in chunks; return external id → record id.

    ``offset`` is the position of the first row (a file imported chunk by chunk); with
    ``with_ids=False`` the (source-wide) id map is not read back and ``{}`` is returned.
    """
    has_sensitive = any(not a.identifying for a in attributes)
    for start in range(0, len(rows), CHUNK):
        chunk = rows[start : start + CHUNK]
        insert_records(
            project_id,
            source_id,
            [row["id"] for row in chunk],
            [row["identifying"] for row in chunk],
            [row["sensitive"] for row in chunk] if has_sensitive else None,
            offset=offset + start,
        )
    if not with_ids:
        return {}
    return dict(
        db.session.execute(
            select(Record.external_id, Record.id).where(Record.source_id == source_id)
        ).all()
    )


def insert_columns(
    project_id: int,
    source_id: int,
    external_ids: Sequence[str],
    identifying: Mapping[str, Sequence[str | None]],
    sensitive: Mapping[str, Sequence[str | None]] | None,
    *,
    offset: int = 0,
) -> None:
    """:func:`insert_records` for values given column by column (name → one value per id)."""
    count = len(external_ids)
    hidden = json_columns(sensitive, count) if sensitive is not None else None
    chars = _characters(identifying, _identifying_kinds(project_id), count)
    shown = json_columns(identifying, count)
    _insert(project_id, source_id, external_ids, shown, chars, hidden, offset)


def _identifying_kinds(project_id: int) -> dict[str, AttributeType]:
    """The project's identifying attributes and their types (what a record's count sums)."""
    query = select(ProjectAttribute.name, ProjectAttribute.kind).where(
        ProjectAttribute.project_id == project_id, ProjectAttribute.identifying.is_(True)
    )
    return {name: AttributeType(kind) for name, kind in db.session.execute(query)}


def _characters(
    columns: Mapping[str, Sequence[str | None]], kinds: Mapping[str, AttributeType], count: int
) -> list[int]:
    """Each record's characters: the sum over the identifying attributes (a missing key is a
    missing value) of :func:`app.core.disclosure.value_characters`."""
    total = [0] * count
    for name, kind in kinds.items():
        column = columns.get(name)
        if column is not None:
            total = list(map(int.__add__, total, column_characters(column, kind)))
    return total


def _insert(project_id, source_id, external_ids, identifying, chars, sensitive, offset) -> None:
    pseudonyms = new_pseudonyms(len(external_ids))
    _write(
        Record,
        _RECORD_COLUMNS,
        [
            (project_id, source_id, rid, p, offset + i, values, n)
            for i, (rid, p, values, n) in enumerate(
                zip(external_ids, pseudonyms, identifying, chars, strict=True)
            )
        ],
    )
    if sensitive is not None:
        # In pseudonym order: the random keys then fill their index page by page instead of
        # at random (1M rows: ~15-30% less CPU), and the vault's row order no longer follows
        # the records' within a batch.
        rows = [(p, project_id, values) for p, values in zip(pseudonyms, sensitive, strict=True)]
        rows.sort(key=itemgetter(0))
        _write(VaultRecord, _VAULT_COLUMNS, rows)


def json_columns(columns: Mapping[str, Sequence[str | None]], count: int) -> list[str]:
    """``[json.dumps({name: column[i] for name, column in columns.items()}) for i in ...]``.

    Each value is encoded once (one C call) and each row is one ``%`` format of a template
    holding the encoded keys; a key or value that is not a string (or ``None``) takes the
    general encoder.
    """
    if not columns:
        return ["{}"] * count
    try:
        encoded = [_encoded(values) for values in columns.values()]
        template = "{" + ", ".join(_key(name) + ": %s" for name in columns) + "}"
    except TypeError:
        names = list(columns)
        rows = zip(*columns.values(), strict=True)
        return [json.dumps(dict(zip(names, row, strict=True))) for row in rows]
    rows = [template % row for row in zip(*encoded, strict=True)]
    if len(rows) != count:
        raise ValueError(f"{len(rows)} rows of values for {count} records")
    return rows


def _key(name: str) -> str:
    return encode_basestring_ascii(name).replace("%", "%%")


def _encoded(values: Sequence[str | None]) -> list[str]:
    if None not in values:
        return list(map(encode_basestring_ascii, values))
    return ["null" if v is None else encode_basestring_ascii(v) for v in values]


def json_rows(dicts: Sequence[dict]) -> list[str]:
    """``[json.dumps(d) for d in dicts]``, column by column when every dict is flat strings
    (or ``None``) under the first one's keys, in its order."""
    if not dicts:
        return []
    keys = list(dicts[0])
    if not keys:
        return [json.dumps(d) for d in dicts]
    try:
        if any(list(d) != keys for d in dicts):
            raise TypeError("keys differ")
        out = [""] * len(dicts)
        for i, key in enumerate(keys):
            head = ("{" if i == 0 else ", ") + encode_basestring_ascii(key) + ": "
            column = map(itemgetter(key), dicts)
            out = [
                f"{o}{head}{'null' if v is None else encode_basestring_ascii(v)}"
                for o, v in zip(out, column, strict=True)
            ]
        return [o + "}" for o in out]
    except TypeError:  # a key or value that is not a string: the general encoder
        return [json.dumps(d) for d in dicts]


def _write(model, columns: tuple[str, ...], rows: list[tuple]) -> None:
    write_rows(model, columns, rows)
