"""Turn an upload's rows into validated records, in two passes.

An import either succeeds whole or changes nothing, so reading takes two passes over the
file: :func:`validate_file` checks every row (collecting up to ``max_errors`` problems with
their line numbers) and :func:`read_records` streams the records in chunks only after that.
Neither pass holds the file in memory; only the set of ids seen so far is kept (to find
duplicates). Bytes → rows is :mod:`app.projects.reading.csvio`; which column is what,
:mod:`app.projects.reading.mapping`.

MINDFIRL's demo files (``tests/data/mindfirl``): ``dev_file1.csv`` repeats ids 1, 2, 5
and 7, and ``dev_file2.csv`` repeats them too; its second ID-5 row has 11 fields. By default
both files are rejected with one "duplicate id" problem per repeated row (plus "expected 12
fields, found 11" for dev_file2 line 9). ``on_duplicate_id="keep_first"`` reproduces
MINDFIRL, which keeps the first row of each id: later rows are dropped *unchecked* (their
content is discarded) and listed in :attr:`ValidationReport.dropped`. dev_file2's first
ID-5 row (line 8) is kept as MINDFIRL keeps it: it has 12 fields but its race is missing,
so the phone number sits in ``race`` and the columns after it are shifted; no generic check
can tell a shifted row from a legitimate one.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from typing import Literal

from app.limits import Limits
from app.projects.reading.batches import Batch, scan_batches
from app.projects.reading.csvio import (
    CsvImportError,
    ImportProblem,
    RowStream,
    Source,
    header_row,
    open_rows,
)
from app.projects.reading.mapping import ColumnMapping

__all__ = [
    "Batch",
    "DuplicatePolicy",
    "Record",
    "ValidationReport",
    "read_records",
    "stream_batches",
    "validate_file",
]

#: Data rows per batch (validated and written together).
BATCH_SIZE = 20_000

DuplicatePolicy = Literal["error", "keep_first"]


@dataclass(frozen=True, slots=True)
class Record:
    """One validated row: normalised identifying values, verbatim sensitive values."""

    line: int
    record_id: str
    source: str | None
    identifying: dict[str, str | None]
    sensitive: dict[str, str]


@dataclass(frozen=True)
class ValidationReport:
    """Outcome of a successful :func:`validate_file`."""

    delimiter: str
    records: int
    dropped: list[ImportProblem]
    missing: list[ImportProblem] = field(default_factory=list)


def _column_index(mapping: ColumnMapping, line: int | None, header: list[str]) -> dict[str, int]:
    """Map each mapped column to its position, or raise with every missing one."""
    names = [h.strip() for h in header]
    found = ", ".join(repr(n) for n in names[:8])
    if not set(mapping.columns) & set(names):
        message = (
            f"no mapped column in the first line, which must be the header; found {found} "
            "(a file without a header row needs its column names given)"
        )
        raise CsvImportError([ImportProblem(line, None, message)])
    problems = []
    for name in mapping.columns:
        count = names.count(name)
        if count == 0:
            message = f"no column {name!r} in the header; found {found}"
            problems.append(ImportProblem(line, name, message))
        elif count > 1:
            problems.append(ImportProblem(line, name, f"column {name!r} appears {count} times"))
    if problems:
        raise CsvImportError(problems)
    return {name: names.index(name) for name in mapping.columns}


def _batches(
    stream: RowStream,
    mapping: ColumnMapping,
    on_duplicate_id: DuplicatePolicy,
    batch_size: int = BATCH_SIZE,
    values: bool = True,
    names: Sequence[str] | None = None,
    limits: Limits | None = None,
) -> Iterator[Batch]:
    """Yield the file's batches; raise for a bad header or a file without data rows.

    ``names``: the column names of a file without a header row (its first row is data).
    """
    if on_duplicate_id not in ("error", "keep_first"):
        raise ValueError(f"on_duplicate_id must be 'error' or 'keep_first': {on_duplicate_id!r}")
    header_line, header = header_row(stream, names)
    at = _column_index(mapping, header_line, header)
    any_rows = False
    for batch in scan_batches(
        stream.rows, mapping, at, len(header),
        on_duplicate_id=on_duplicate_id, batch_size=batch_size, values=values,
        named=names is not None, limits=limits,
    ):  # fmt: skip
        any_rows = True
        yield batch
    if not any_rows:
        message = "the file has no rows" if names else "the file has a header row but no data rows"
        raise CsvImportError([ImportProblem(header_line, None, message)])


def validate_file(
    source: Source,
    mapping: ColumnMapping,
    *,
    on_duplicate_id: DuplicatePolicy = "error",
    max_errors: int = 100,
    delimiter: str | None = None,
    names: Sequence[str] | None = None,
    limits: Limits | None = None,
) -> ValidationReport:
    """Check every row of ``source``; raise :class:`CsvImportError` listing the problems.

    Lists the first ``max_errors`` problems and counts them all (``total``; ``truncated`` is
    then set). Encoding errors, an over-long line, a broken quote and header problems stop
    at once.
    """
    errors: list[ImportProblem] = []
    dropped: list[ImportProblem] = []
    missing: list[ImportProblem] = []
    count = total = 0
    with open_rows(source, delimiter=delimiter) as stream:
        batches = _batches(
            stream, mapping, on_duplicate_id, values=False, names=names, limits=limits
        )
        for batch in batches:
            count += len(batch)
            missing += batch.missing
            for is_dropped, problem in batch.problems:
                if is_dropped:
                    dropped.append(problem)
                    continue
                total += 1
                if len(errors) < max_errors:
                    errors.append(problem)
        if errors:
            raise CsvImportError(errors, total=total)
        return ValidationReport(stream.delimiter, count, dropped, missing)


def stream_batches(
    source: Source,
    mapping: ColumnMapping,
    *,
    on_duplicate_id: DuplicatePolicy = "error",
    max_errors: int = 100,
    batch_size: int = BATCH_SIZE,
    names: Sequence[str] | None = None,
    limits: Limits | None = None,
) -> Iterator[Batch]:
    """Validate while reading, in one pass: yield each clean batch until a problem appears.

    From the first problem on nothing more is yielded, but the file is read to its end to
    list the first ``max_errors`` problems and count them all, then :class:`CsvImportError`
    is raised. A caller that writes each batch inside one transaction rolls it back on that
    error and nothing is kept. ``limits`` (:class:`~app.limits.Limits`; its defaults when None)
    bounds each record's id and values.
    """
    errors: list[ImportProblem] = []
    total = 0
    with open_rows(source) as stream:
        batches = _batches(
            stream, mapping, on_duplicate_id, batch_size, values=True, names=names, limits=limits
        )
        for batch in batches:
            found = batch.errors
            total += len(found)
            errors += found[: max(0, max_errors - len(errors))]
            if not total:
                yield batch
    if errors:
        raise CsvImportError(errors, total=total)


def read_records(
    source: Source,
    mapping: ColumnMapping,
    *,
    chunk_size: int = 5000,
    on_duplicate_id: DuplicatePolicy = "error",
    delimiter: str | None = None,
    validate: bool = True,
    names: Sequence[str] | None = None,
) -> Iterator[list[Record]]:
    """Validate ``source`` whole (unless ``validate=False``), then stream it in chunks.

    Validation runs here, before the first chunk exists, so a caller that writes each chunk
    inside one transaction never starts on a bad file. Rows dropped by
    ``on_duplicate_id="keep_first"`` are skipped; call :func:`validate_file` to list them.
    The import itself uses :func:`stream_batches`, which reads the file once.
    """
    if validate:
        report = validate_file(
            source, mapping, on_duplicate_id=on_duplicate_id, delimiter=delimiter, names=names
        )
        delimiter = report.delimiter
    return _chunks(source, mapping, chunk_size, on_duplicate_id, delimiter, names)


def _chunks(
    source: Source,
    mapping: ColumnMapping,
    chunk_size: int,
    on_duplicate_id: DuplicatePolicy,
    delimiter: str | None,
    names: Sequence[str] | None,
) -> Iterator[list[Record]]:
    with open_rows(source, delimiter=delimiter) as stream:
        for batch in _batches(stream, mapping, on_duplicate_id, chunk_size, names=names):
            if batch.errors:
                raise CsvImportError(batch.errors[:1])
            yield [
                Record(*fields)
                for fields in zip(
                    batch.lines, batch.ids, batch.sources, batch.identifying, batch.sensitive,
                    strict=True,
                )
            ]  # fmt: skip
