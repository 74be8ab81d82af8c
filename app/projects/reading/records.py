"""Turn an upload's rows into validated records, in two passes.

An import either succeeds whole or changes nothing, so reading takes two passes over the
file: :func:`validate_file` checks every row (collecting up to ``max_errors`` problems with
their line numbers) and :func:`read_records` streams the records in chunks only after that.
Neither pass holds the file in memory; only the set of ids seen so far is kept (to find
duplicates). Bytes → rows is :mod:`app.projects.reading.csvio`.

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

from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from typing import Literal

from app.core.attributes import AttributeType, normalize
from app.projects.reading.csvio import (
    CsvImportError,
    ImportProblem,
    RowStream,
    Source,
    header_row,
    open_rows,
)

__all__ = [
    "ColumnMapping",
    "DuplicatePolicy",
    "Record",
    "ValidationReport",
    "read_records",
    "validate_file",
]

#: Longest unique id (the ``records.external_id`` column).
MAX_ID_LENGTH = 100

DuplicatePolicy = Literal["error", "keep_first"]


@dataclass(frozen=True)
class ColumnMapping:
    """Role of each column: the unique id, an optional source, identifying, sensitive.

    Columns not named here are ignored. ``identifying`` maps a column to its
    :class:`AttributeType`; its values are stored normalised. ``sensitive`` values are kept
    verbatim (stripped) for the vault. With a ``source_column``, ids must be unique per
    source rather than per file.
    """

    id_column: str
    identifying: Mapping[str, AttributeType] = field(default_factory=dict)
    sensitive: tuple[str, ...] = ()
    source_column: str | None = None

    def __post_init__(self) -> None:
        typed = {name: AttributeType(kind) for name, kind in self.identifying.items()}
        object.__setattr__(self, "identifying", typed)
        object.__setattr__(self, "sensitive", tuple(self.sensitive))
        # The id column may also be shown as an identifying attribute; nothing else overlaps.
        roles = [*typed, *self.sensitive, self.source_column]
        roles += [] if self.id_column in typed else [self.id_column]
        doubled = sorted({n for n in roles if n is not None and roles.count(n) > 1})
        if doubled:
            raise ValueError(f"columns with more than one role: {', '.join(doubled)}")

    @property
    def columns(self) -> list[str]:
        """Every mapped column, id first."""
        extra = [self.source_column] if self.source_column is not None else []
        rest = [c for c in [*self.identifying, *self.sensitive] if c != self.id_column]
        return [self.id_column, *extra, *rest]


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


def _column_index(mapping: ColumnMapping, line: int, header: list[str]) -> dict[str, int]:
    """Map each mapped column to its position, or raise with every missing one."""
    names = [h.strip() for h in header]
    found = ", ".join(repr(n) for n in names[:8])
    if not set(mapping.columns) & set(names):
        message = f"no mapped column in the first line, which must be the header; found {found}"
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


def _scan(
    stream: RowStream, mapping: ColumnMapping, on_duplicate_id: DuplicatePolicy
) -> Iterator[Record | tuple[bool, ImportProblem]]:
    """Yield each record, or ``(dropped, problem)`` for a row that is not imported."""
    if on_duplicate_id not in ("error", "keep_first"):
        raise ValueError(f"on_duplicate_id must be 'error' or 'keep_first': {on_duplicate_id!r}")
    header_line, header = header_row(stream)
    at = _column_index(mapping, header_line, header)
    width, id_col, src_col = len(header), mapping.id_column, mapping.source_column
    seen: dict[tuple[str | None, str], int] = {}
    any_rows = False
    for line, fields in stream.rows:
        any_rows = True

        def get(name: str, fields: list[str] = fields) -> str:
            return fields[at[name]].strip() if at[name] < len(fields) else ""

        record_id, source = get(id_col), (get(src_col) if src_col is not None else None)
        first = seen.setdefault((source, record_id), line) if record_id else None
        duplicate = first is not None and first != line
        if duplicate and on_duplicate_id == "keep_first":
            message = f"dropped: duplicate id {record_id!r}, kept line {first}"
            yield True, ImportProblem(line, id_col, message)
            continue
        problems = []
        if len(fields) != width:
            message = f"expected {width} fields (as in the header), found {len(fields)}"
            problems.append(ImportProblem(line, None, message))
        if not record_id:
            problems.append(ImportProblem(line, id_col, "empty id"))
        elif len(record_id) > MAX_ID_LENGTH:
            message = f"id longer than {MAX_ID_LENGTH} characters"
            problems.append(ImportProblem(line, id_col, message))
        if duplicate:
            message = f"duplicate id {record_id!r} (first seen on line {first})"
            problems.append(ImportProblem(line, id_col, message))
        if src_col is not None and not source:
            problems.append(ImportProblem(line, src_col, "empty source"))
        identifying: dict[str, str | None] = {}
        if len(fields) == width:
            for name, kind in mapping.identifying.items():
                try:
                    identifying[name] = normalize(kind, get(name))
                except ValueError as exc:
                    problems.append(ImportProblem(line, name, str(exc)))
        if problems:
            yield from ((False, p) for p in problems)
            continue
        sensitive = {name: get(name) for name in mapping.sensitive}
        yield Record(line, record_id, source, identifying, sensitive)
    if not any_rows:
        message = "the file has a header row but no data rows"
        raise CsvImportError([ImportProblem(header_line, None, message)])


def validate_file(
    source: Source,
    mapping: ColumnMapping,
    *,
    on_duplicate_id: DuplicatePolicy = "error",
    max_errors: int = 100,
    delimiter: str | None = None,
) -> ValidationReport:
    """Check every row of ``source``; raise :class:`CsvImportError` listing the problems.

    Stops after ``max_errors`` problems (``truncated`` is then set). Encoding errors, an
    over-long line, a broken quote and header problems stop at once.
    """
    errors: list[ImportProblem] = []
    dropped: list[ImportProblem] = []
    count = 0
    with open_rows(source, delimiter=delimiter) as stream:
        for item in _scan(stream, mapping, on_duplicate_id):
            if isinstance(item, Record):
                count += 1
                continue
            (dropped if item[0] else errors).append(item[1])
            if len(errors) >= max_errors:
                raise CsvImportError(errors, truncated=True)
        if errors:
            raise CsvImportError(errors)
        return ValidationReport(stream.delimiter, count, dropped)


def read_records(
    source: Source,
    mapping: ColumnMapping,
    *,
    chunk_size: int = 5000,
    on_duplicate_id: DuplicatePolicy = "error",
    delimiter: str | None = None,
    validate: bool = True,
) -> Iterator[list[Record]]:
    """Validate ``source`` whole (unless ``validate=False``), then stream it in chunks.

    Validation runs here, before the first chunk exists, so a caller that writes each chunk
    inside one transaction never starts on a bad file. Rows dropped by
    ``on_duplicate_id="keep_first"`` are skipped; call :func:`validate_file` to list them.
    """
    if validate:
        report = validate_file(
            source, mapping, on_duplicate_id=on_duplicate_id, delimiter=delimiter
        )
        delimiter = report.delimiter
    return _chunks(source, mapping, chunk_size, on_duplicate_id, delimiter)


def _chunks(
    source: Source,
    mapping: ColumnMapping,
    chunk_size: int,
    on_duplicate_id: DuplicatePolicy,
    delimiter: str | None,
) -> Iterator[list[Record]]:
    chunk: list[Record] = []
    with open_rows(source, delimiter=delimiter) as stream:
        for item in _scan(stream, mapping, on_duplicate_id):
            if isinstance(item, Record):
                chunk.append(item)
                if len(chunk) >= chunk_size:
                    yield chunk
                    chunk = []
            elif not item[0]:
                raise CsvImportError([item[1]])
    if chunk:
        yield chunk
