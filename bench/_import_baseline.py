"""The import path as it was before the one-pass work of issue 15 item 3, kept as baseline.

:func:`install` puts the previous versions of the functions that changed back in place (in
the bench's baseline process only): blank-row detection per row with a generator, the
per-value memo loop, the mapping-step check building every record's dicts, ``json.dumps``
per record and vault row. Everything else the manager's
path does (the check, the streamed import, ``executemany`` batches) is the same code."""

from __future__ import annotations

import csv
import json
from collections.abc import Iterator, Sequence

from app.core.attributes import normalize
from app.projects.importing import service
from app.projects.lifecycle import bulk
from app.projects.reading import batches, csvio
from app.projects.reading.csvio import CsvImportError, ImportProblem, _csv_message


def _parsed(reader) -> Iterator[tuple[int, list[str]]]:
    """Yield non-blank rows with the physical line each starts on."""
    while True:
        start = reader.line_num + 1
        try:
            fields = next(reader)
        except StopIteration:
            return
        except csv.Error as exc:
            raise CsvImportError([ImportProblem(start, None, _csv_message(exc))]) from None
        if any(f.strip() for f in fields):
            yield start, fields


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
    pseudonyms = bulk.new_pseudonyms(len(external_ids))
    dumps = json.dumps
    bulk._write(
        bulk.Record,
        bulk._RECORD_COLUMNS,
        [
            (project_id, source_id, rid, p, offset + i, dumps(values))
            for i, (rid, p, values) in enumerate(
                zip(external_ids, pseudonyms, identifying, strict=True)
            )
        ],
    )
    if sensitive is not None:
        bulk._write(
            bulk.VaultRecord,
            bulk._VAULT_COLUMNS,
            [
                (p, project_id, dumps(values))
                for p, values in zip(pseudonyms, sensitive, strict=True)
            ],
        )


def column(self, values, lines, name, problems) -> list[str | None]:
    known, kind, out = self.known, self.kind, []
    append = out.append
    for value, line in zip(values, lines, strict=True):
        try:
            append(known[value])
            continue
        except KeyError:
            pass
        try:
            normal = normalize(kind, value)
        except ValueError as exc:
            problems.append((line, False, ImportProblem(line, name, str(exc))))
            append(None)
            continue
        if len(known) < batches._MEMO_SIZE:
            known[value] = normal
        append(normal)
    return out


def install() -> None:
    """Put the previous path in place of today's (for the rest of this process)."""
    today = batches._batch

    def every_value(*args):  # the check built every record's dicts too
        return today(*args[:-1], True)

    batches._batch = every_value
    batches._Memo.column = column
    csvio._parsed = _parsed
    bulk.insert_records = service.insert_records = insert_records
