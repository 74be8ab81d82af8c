"""Read the columns of a Parquet file footer first, then in batches under a byte budget.

A Parquet file says in its footer how many rows it has, each column's type and, per row
group, each column's uncompressed size and (when small enough) its smallest and largest
value. A 2,932-byte file of 200,000 dictionary-encoded 10,000-character ids made a worker
allocate 3.8 GB when read whole before any check (issue 42). So, before anything is decoded:

1. the footer is read (a file whose footer cannot be read is refused);
2. each column read must have a type its reader takes (text: a string or whole numbers;
   numbers: integers or floats): a list, struct, map or binary column is refused by name;
3. the rows must be at most ``max_rows``;
4. each column chunk's uncompressed size must fit its rows at their bound (4 bytes a
   character and 8 of offsets), and a text column's statistics, when the writer kept them,
   must be within its bound.

Then the row groups are read a batch at a time, as many rows as :data:`BATCH_BYTES` holds at
the bounds, text columns as dictionaries (a dictionary-encoded column stays its few distinct
values and an index per row): each distinct value is checked (UTF-8, length) before any is
decoded, and a row past a bound is named with its column. Messages never quote a value.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq

__all__ = ["BATCH_BYTES", "Bound", "PredictionsError", "open_parquet", "read_bounded"]

#: Decoded bytes of one batch at the columns' bounds.
BATCH_BYTES = 64 << 20
#: What a column chunk may take besides its values (page headers, levels, a dictionary page).
_SLACK = 64 << 10
_DAMAGED = "the Parquet file cannot be read (damaged or not Parquet)"


class PredictionsError(ValueError):
    """The scored pairs cannot be read; ``problems`` says where (row, column) and why, never
    with a value (raised by this module and by :mod:`app.projects.reading.predictions`)."""

    def __init__(self, problems: list[str]):
        self.problems = list(problems)
        super().__init__("; ".join(self.problems[:5]))


@dataclass(frozen=True)
class Bound:
    """How a column is read: ``text`` (at most ``most`` characters, refused in the words of
    ``words(most)``) or numbers (``most`` None)."""

    most: int | None = None
    words: Callable[[int], str] | None = None

    @property
    def text(self) -> bool:
        return self.most is not None

    def value_bytes(self) -> int:
        """The most bytes one decoded value takes (UTF-8 and an offset, or a number)."""
        return 4 * self.most + 8 if self.text else 16


def _input(source):
    """A path as it is; bytes as a new reader (each open reads from its start)."""
    if isinstance(source, bytes | bytearray | memoryview):
        return pa.BufferReader(pa.py_buffer(source))
    return source


def open_parquet(source, **options) -> pq.ParquetFile:
    """The file's footer (nothing decoded); :class:`PredictionsError` when it cannot be read."""
    try:
        return pq.ParquetFile(_input(source), **options)
    except (pa.ArrowException, OSError, ValueError):
        raise PredictionsError([_DAMAGED]) from None


def _kind_problem(name: str, kind: pa.DataType, bound: Bound) -> str | None:
    if pa.types.is_dictionary(kind):
        kind = kind.value_type
    if bound.text and (pa.types.is_string(kind) or pa.types.is_large_string(kind)):
        return None
    if pa.types.is_integer(kind) or (not bound.text and pa.types.is_floating(kind)):
        return None
    wanted = "text (UTF-8) or whole numbers" if bound.text else "numbers"
    return f"column {name!r} must hold {wanted}; it holds {kind}"


def _check_footer(parquet: pq.ParquetFile, bounds: Mapping[str, Bound], max_rows) -> None:
    schema, meta = parquet.schema_arrow, parquet.metadata
    problems = []
    for name, bound in bounds.items():
        if schema.get_all_field_indices(name) != [schema.get_field_index(name)]:
            problems.append(f"column {name!r} appears more than once")
            continue
        problem = _kind_problem(name, schema.field(name).type, bound)
        if problem is not None:
            problems.append(problem)
    if problems:
        raise PredictionsError(problems)
    if max_rows is not None and meta.num_rows > max_rows:
        raise PredictionsError([f"{meta.num_rows:,} pairs is more than the limit of {max_rows:,}"])
    leaf = {meta.schema.column(i).path: i for i in range(meta.num_columns)}
    first = 0
    for group in range(meta.num_row_groups):
        row_group = meta.row_group(group)
        rows = f"rows {first + 1:,}-{first + row_group.num_rows:,}"
        for name, bound in bounds.items():
            chunk = row_group.column(leaf[name])
            budget = row_group.num_rows * bound.value_bytes() + _SLACK
            if chunk.total_uncompressed_size > budget:
                problems.append(
                    f"column {name!r}, {rows}: {chunk.total_uncompressed_size:,} bytes "
                    f"uncompressed, more than {row_group.num_rows:,} values within the bound take"
                )
            elif bound.text and _past_in_statistics(chunk.statistics, bound.most):
                problems.append(f"column {name!r}, {rows}: {bound.words(bound.most)}")
        first += row_group.num_rows
    if problems:
        raise PredictionsError(problems)


def _past_in_statistics(statistics, most: int) -> bool:
    """Whether the chunk's smallest or largest value (when kept) is longer than ``most``."""
    if statistics is None or not statistics.has_min_max:
        return False
    try:
        ends = (statistics.min, statistics.max)
    except (pa.ArrowException, UnicodeDecodeError, ValueError):
        return False  # undecodable statistics: the values themselves are checked
    return any(isinstance(v, str | bytes) and len(v) > most for v in ends)


def read_bounded(
    source,
    bounds: Mapping[str, Bound],
    *,
    max_rows: int | None = None,
    max_problems: int = 20,
) -> pa.Table:
    """The columns ``bounds`` names (all present), read as the module says; raise
    :class:`PredictionsError` naming the columns (and rows) of every problem."""
    _check_footer(open_parquet(source), bounds, max_rows)
    per_row = sum(bound.value_bytes() for bound in bounds.values())
    rows = max(1, BATCH_BYTES // per_row)
    problems: list[str] = []
    found: dict[str, tuple[str, int]] = {}  # column -> (message, rows past it)
    chunks: dict[str, list[pa.Array]] = {name: [] for name in bounds}
    done = 0
    try:
        reader = open_parquet(source, read_dictionary=[n for n, b in bounds.items() if b.text])
        for batch in reader.iter_batches(batch_size=rows, columns=list(bounds), use_threads=False):
            for name, bound in bounds.items():
                column = batch.column(name)
                if bound.text:
                    column = _text(column, name, bound, done, problems, found, max_problems)
                if not problems:
                    chunks[name].append(column)
            done += batch.num_rows
    except (pa.ArrowException, OSError, ValueError):
        raise PredictionsError([_DAMAGED]) from None
    if sum(count for _, count in found.values()) > len(problems):
        problems += [f"column {n!r}: {m} in {c:,} rows in all" for n, (m, c) in found.items()]
    if problems:
        raise PredictionsError(problems)
    return pa.table({name: _joined(parts, bounds[name]) for name, parts in chunks.items()})


def _joined(parts: list[pa.Array], bound: Bound) -> pa.ChunkedArray:
    if parts:
        return pa.chunked_array(parts)
    return pa.chunked_array([], pa.string() if bound.text else pa.float64())


def _text(column, name: str, bound: Bound, offset: int, problems, found, most_listed: int):
    """A text column of one batch, checked and decoded: a dictionary's distinct values are
    checked before any row is decoded; whole numbers become their digits."""
    if pa.types.is_integer(column.type):
        return pc.cast(column, pa.string())
    if not pa.types.is_dictionary(column.type):
        column = pc.dictionary_encode(column)
    values = column.dictionary
    bad = _not_utf8(values)
    if bad is None:
        bad = pc.greater(pc.utf8_length(values), bound.most).to_numpy(zero_copy_only=False)
        message = bound.words(bound.most)
    else:
        message = "not UTF-8 text"
    if bad.any():
        indices = pc.fill_null(column.indices, 0).to_numpy(zero_copy_only=False)
        valid = ~column.is_null().to_numpy(zero_copy_only=False)
        rows = np.flatnonzero(valid & bad[indices]) + offset
        room = max(0, most_listed - len(problems))
        problems.extend(f"row {r + 1}, column {name!r}: {message}" for r in rows[:room].tolist())
        found[name] = (message, found.get(name, ("", 0))[1] + len(rows))
        return column
    return pc.cast(column, values.type)


def _not_utf8(values: pa.Array) -> np.ndarray | None:
    """Which of the distinct ``values`` are not UTF-8 (None when all are)."""
    try:
        values.validate(full=True)
        return None
    except pa.ArrowInvalid:
        pass
    raw = values.view(pa.large_binary() if pa.types.is_large_string(values.type) else pa.binary())
    return np.array([not _decodes(v) for v in raw.to_pylist()], dtype=bool)


def _decodes(value: bytes | None) -> bool:
    try:
        if value is not None:
            value.decode("utf-8")
    except UnicodeDecodeError:
        return False
    return True
