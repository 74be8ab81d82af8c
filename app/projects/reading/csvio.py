"""Read a manager's CSV upload as rows: encoding, dialect, header, preview.

:func:`open_rows` turns bytes (a path or the uploaded bytes) into parsed rows with the
line numbers a user sees in an editor or spreadsheet; :func:`preview` shows the first rows
for the column-mapping form. Turning rows into validated records is
:mod:`app.projects.reading.records`.

Accepted input: UTF-8 with or without a byte-order mark; delimiter ``,`` ``;`` tab or ``|``
(detected, or given); ``"`` quoting with doubled quotes, which may enclose delimiters and
newlines; a header row, or column names given for a file without one
(:mod:`app.projects.reading.layout` guesses which). A picture, workbook or archive is refused
by name (:mod:`app.projects.reading.signatures`). Blank lines (and rows of empty fields) are
skipped. Any physical line or quoted field over :data:`MAX_LINE_BYTES` is rejected before it
is held whole.
"""

from __future__ import annotations

import csv
import io
import itertools
import os
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from typing import BinaryIO

from app.projects.reading.signatures import not_text_message

__all__ = [
    "MAX_LINE_BYTES",
    "CsvImportError",
    "ImportProblem",
    "Preview",
    "RowStream",
    "Source",
    "header_row",
    "open_rows",
    "preview",
]

#: Longest physical line, and longest field, accepted (bytes / characters).
MAX_LINE_BYTES = 1 << 20
DELIMITERS = ",;\t|"
_SNIFF_BYTES = 64 * 1024
_BLOCK_BYTES = 256 * 1024
_UTF8_BOM = b"\xef\xbb\xbf"

# The csv module's field limit is process-wide. Set it once, on purpose, to the line limit
# so a quoted field spanning many short lines cannot grow without bound either.
csv.field_size_limit(MAX_LINE_BYTES)

Source = str | os.PathLike[str] | bytes


@dataclass(frozen=True, slots=True)
class ImportProblem:
    """One problem in an upload; ``line`` is 1-based as shown by an editor."""

    line: int | None
    column: str | None
    message: str
    file: str | None = None  # which upload ("file A"), when there are several

    def __str__(self) -> str:
        where = [self.file] if self.file else []
        if self.line is not None:
            where.append(f"line {self.line}")
        if self.column is not None:
            where += [] if where else ["file"]
            where.append(f"column {self.column!r}")
        return f"{', '.join(where)}: {self.message}" if where else self.message


class CsvImportError(ValueError):
    """The upload was rejected; ``problems`` says where and why.

    ``problems`` may be the first of more: ``total`` counts them all (a list cut at a limit
    says "and N more", never stops silently), ``truncated`` says the list was cut.
    """

    def __init__(
        self, problems: list[ImportProblem], *, truncated: bool = False, total: int | None = None
    ) -> None:
        self.problems = list(problems)
        self.total = max(total or 0, len(self.problems))
        self.truncated = truncated or self.total > len(self.problems)
        shown = "; ".join(str(p) for p in self.problems[:3])
        more = self.total - min(3, len(self.problems))
        super().__init__(shown + (f"; and {more} more" if more > 0 else ""))

    @property
    def more(self) -> int:
        """Problems counted but not listed."""
        return self.total - len(self.problems)


@dataclass(frozen=True)
class Preview:
    """Header, first rows and detected dialect, for the column-mapping form."""

    header: list[str]
    rows: list[list[str]]
    delimiter: str
    has_bom: bool


@dataclass(frozen=True)
class RowStream:
    """Non-blank rows as ``(line the row starts on, fields)``, and how they were read."""

    delimiter: str
    has_bom: bool
    rows: Iterator[tuple[int, list[str]]]


class _Lines:
    """Decode a binary stream line by line, checking encoding and line length.

    Iterating checks every line on its own. :meth:`rest` yields the same lines faster: it
    checks and decodes a block of whole lines at once (a block no longer than the line limit
    cannot hold an over-long line, and one that decodes whole has only valid lines), and
    goes back to the line-by-line reading from the first block that fails a check, so every
    problem is reported exactly as line by line.
    """

    def __init__(self, stream: BinaryIO, max_line_bytes: int) -> None:
        self.stream, self.max = stream, max_line_bytes
        self.number = self.offset = 0
        self.has_bom = False

    def __iter__(self) -> Iterator[str]:
        return self

    def __next__(self) -> str:
        raw = self.stream.readline(self.max + 1)
        if not raw:
            raise StopIteration
        self.number += 1
        start, self.offset = self.offset, self.offset + len(raw)
        if self.number == 1:
            if raw.startswith((b"\xff\xfe", b"\xfe\xff")):
                self._fail("the file is UTF-16 (or UTF-32) encoded; save it as UTF-8")
            if raw.startswith(_UTF8_BOM):
                self.has_bom, raw = True, raw[len(_UTF8_BOM) :]
        if len(raw) > self.max:
            self._fail(f"line is longer than the limit of {self.max:,} bytes")
        if b"\0" in raw:
            self._fail("contains NUL bytes: a binary or UTF-16 file? Save it as UTF-8 CSV")
        try:
            return raw.decode("utf-8")
        except UnicodeDecodeError as exc:
            at = start + exc.start + (3 if self.has_bom and self.number == 1 else 0)
            self._fail(
                f"not valid UTF-8: byte 0x{raw[exc.start]:02x} at byte offset {at}; "
                "save the file as UTF-8 (Latin-1/Windows-1252 is not accepted)"
            )

    def rest(self) -> Iterator[str]:
        """The lines not read yet, as iterating would yield them (see the class)."""
        carry = b""
        while True:
            data = self.stream.read(_BLOCK_BYTES)
            block = carry + data
            cut = block.rfind(b"\n") + 1 if data else len(block)
            block, carry = block[:cut], block[cut:]
            if len(block) > self.max or len(carry) > self.max or b"\0" in block:
                break
            try:
                text = block.decode("utf-8")
            except UnicodeDecodeError:
                break
            if block:
                self.number += block.count(b"\n") + (not block.endswith(b"\n"))
                self.offset += len(block)
                yield from io.StringIO(text, newline="\n")
            if not data:
                return
        self.stream.seek(self.offset)  # the failing block, line by line
        yield from self

    def _fail(self, message: str) -> None:
        raise CsvImportError([ImportProblem(self.number, None, message)])


def _detect_delimiter(sample: list[str]) -> str:
    """Sniff among :data:`DELIMITERS`; fall back to the commonest one in the header."""
    header = sample[0]
    try:
        found = csv.Sniffer().sniff("".join(sample), delimiters=DELIMITERS).delimiter
    except csv.Error:
        found = None
    if found is not None and found in header:
        return found
    counts = [(header.count(d), -i, d) for i, d in enumerate(DELIMITERS)]
    best = max(counts)
    return best[2] if best[0] else ","


def _csv_message(exc: csv.Error) -> str:
    text = str(exc)
    if "field larger than field limit" in text:
        return f"a field is longer than the limit of {MAX_LINE_BYTES:,} characters"
    if "unexpected end of data" in text:
        return 'unterminated quoted field: a " opened here is never closed'
    return f"malformed CSV ({text})"


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
        # The first field (usually the id) is rarely blank: test it before the rest.
        if fields and (fields[0].strip() or any(map(str.strip, fields))):
            yield start, fields


def _refuse_non_text(raw: BinaryIO) -> None:
    """Raise, naming what it is, for a picture, workbook, archive ... uploaded as a CSV."""
    message = not_text_message(raw.read(16))
    raw.seek(0)
    if message is not None:
        raise CsvImportError([ImportProblem(None, None, message)])


@contextmanager
def open_rows(
    source: Source, *, delimiter: str | None = None, max_line_bytes: int = MAX_LINE_BYTES
) -> Iterator[RowStream]:
    """Open ``source`` (a path or the uploaded bytes) and yield its parsed rows."""
    is_bytes = isinstance(source, bytes | bytearray)
    with io.BytesIO(source) if is_bytes else open(source, "rb") as raw:  # noqa: SIM115
        _refuse_non_text(raw)
        lines = _Lines(raw, max_line_bytes)
        sample: list[str] = []
        for line in lines:
            sample.append(line)
            if sum(map(len, sample)) >= _SNIFF_BYTES:
                break
        nonblank = [s for s in sample if s.strip()]
        chosen = delimiter or (_detect_delimiter(nonblank) if nonblank else ",")
        reader = csv.reader(
            itertools.chain(sample, lines.rest()), delimiter=chosen, quotechar='"', strict=True
        )
        yield RowStream(chosen, lines.has_bom, _parsed(reader))


def preview(
    source: Source,
    rows: int = 10,
    *,
    delimiter: str | None = None,
    names: Sequence[str] | None = None,
) -> Preview:
    """Return the header, the first ``rows`` data rows and the detected dialect.

    ``names`` are the column names of a file without a header row: its first row is data.
    """
    with open_rows(source, delimiter=delimiter) as stream:
        _, header = header_row(stream, names)
        first = [fields for _, fields in itertools.islice(stream.rows, rows)]
        return Preview([h.strip() for h in header], first, stream.delimiter, stream.has_bom)


def header_row(
    stream: RowStream, names: Sequence[str] | None = None
) -> tuple[int | None, list[str]]:
    """The first non-blank row and its line; raise if the file is empty.

    With ``names`` (a file without a header row) no row is read: the names are the header,
    on no line (``None``).
    """
    if names is not None:
        return None, list(names)
    for line, fields in stream.rows:
        return line, fields
    raise CsvImportError([ImportProblem(None, None, "the file is empty")])
