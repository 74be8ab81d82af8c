"""Read a linker's scored pairs (Splink's ``predict()`` output) from CSV or Parquet.

Columns (``docs/triage.md``): ``unique_id_l``, ``unique_id_r``, ``match_probability`` and/or
``match_weight``, optionally ``source_dataset_l``, ``source_dataset_r`` (absent in a Splink
``dedupe_only`` output) and ``match_key``; any other column (Splink's ``gamma_*``, the
compared values, ``tf_*``) is not read at all, so record values in the file never enter the
application this way. A missing score is derived from the other one: Splink's
``match_probability = 2^w / (1 + 2^w)``.

Parquet is recognised by its magic bytes (``PAR1``) and read footer first, its row groups in
batches under a byte budget (:mod:`app.projects.reading.parquet`: a 3 KB file must not become
gigabytes); anything else is read as UTF-8 CSV with a header and a ``,`` ``;`` tab or ``|``
delimiter. Both are read by pyarrow, column-wise. Ids and source names are bounded by
``MAX_RECORD_ID_CHARS`` (:mod:`app.limits`), a rule by ``pairs.rule``'s 200 characters.
Problems name the row (1-based, data rows) and column, never a value.
"""

from __future__ import annotations

import io
import os
import re
from dataclasses import dataclass

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.csv as pacsv

from app.limits import refusal
from app.projects.reading.parquet import Bound, PredictionsError, open_parquet, read_bounded

__all__ = [
    "COLUMNS",
    "PredictionsError",
    "ScoredPairs",
    "count_rows",
    "distinct",
    "read_predictions",
    "string_array",
]

ID_COLUMNS = ("unique_id_l", "unique_id_r")
SOURCE_COLUMNS = ("source_dataset_l", "source_dataset_r")
SCORE_COLUMNS = ("match_probability", "match_weight")
#: Every column read; the others are ignored.
COLUMNS = (*SOURCE_COLUMNS, *ID_COLUMNS, *SCORE_COLUMNS, "match_key")
MAX_PROBLEMS = 20
#: The longest rule (``match_key``): ``pairs.rule`` is VARCHAR(200).
MAX_RULE_CHARS = 200
_PARQUET_MAGIC = b"PAR1"
_DELIMITERS = ",;\t|"

Source = str | os.PathLike[str] | bytes


@dataclass(frozen=True)
class ScoredPairs:
    """A linker's scored pairs, column by column, in file order.

    Ids, sources and rules are Arrow string arrays (lists given are converted), so that ten
    million pairs make no Python string each. ``source_l``/``source_r`` are ``None`` when the
    file has no source columns; ``match_key`` is ``None`` when it has no rule column (an
    entry is null when empty).
    """

    id_l: pa.Array
    id_r: pa.Array
    match_probability: np.ndarray
    match_weight: np.ndarray
    source_l: pa.Array | None = None
    source_r: pa.Array | None = None
    match_key: pa.Array | None = None
    format: str = "csv"

    def __post_init__(self) -> None:
        for name in ("id_l", "id_r", "source_l", "source_r", "match_key"):
            value = getattr(self, name)
            if value is not None:
                object.__setattr__(self, name, string_array(value))

    def __len__(self) -> int:
        return len(self.id_l)

    @property
    def sources(self) -> list[str]:
        """The distinct source names, in order of first appearance (left, then right)."""
        if self.source_l is None or self.source_r is None:
            return []
        return distinct(self.source_l, self.source_r)


def string_array(values) -> pa.Array:
    """``values`` (a sequence of strings, an Arrow array or chunked array) as one Arrow
    string array; ``large_string`` when its text passes the 2 GiB of ``string``'s offsets."""
    if isinstance(values, pa.ChunkedArray):
        if values.num_chunks == 1:
            values = values.chunk(0)
        elif values.nbytes >= 2**31 - 2**24 and pa.types.is_string(values.type):
            values = pc.cast(values, pa.large_string()).combine_chunks()
        else:
            values = values.combine_chunks()
    if not isinstance(values, pa.Array):
        values = pa.array(values, pa.string())
    if not (pa.types.is_string(values.type) or pa.types.is_large_string(values.type)):
        values = pc.cast(values, pa.string())
    return values


def distinct(*arrays: pa.Array) -> list[str]:
    """The distinct values of ``arrays``, in order of first appearance (nulls left out)."""
    names: dict[str, None] = {}
    for array in arrays:
        names.update(dict.fromkeys(pc.unique(array.drop_null()).to_pylist()))
    return list(names)


def read_predictions(source: Source, *, max_rows: int | None = None, max_id: int = 100):
    """Read ``source`` (a path or the file's bytes) as :class:`ScoredPairs`.

    Raises :class:`PredictionsError` naming rows and columns (at most :data:`MAX_PROBLEMS`).
    """
    head = _head(source)
    if head.startswith(_PARQUET_MAGIC):
        table, fmt = _parquet(source, max_rows, max_id), "parquet"
    else:
        table, fmt = _csv(source, head), "csv"
    if max_rows is not None and table.num_rows > max_rows:
        raise PredictionsError([f"{table.num_rows:,} pairs is more than the limit of {max_rows:,}"])
    try:
        return _columns(table, fmt, max_id)
    except pa.ArrowException:  # a column no check foresaw: refused, never a 500
        raise PredictionsError(["the file's columns cannot be read as scored pairs"]) from None


def _head(source: Source) -> bytes:
    if isinstance(source, bytes | bytearray | memoryview):
        return bytes(source[:4096])
    with open(source, "rb") as fh:
        return fh.read(4096)


def _buffer(source: Source):
    if isinstance(source, bytes | bytearray | memoryview):
        return pa.BufferReader(pa.py_buffer(source))
    return os.fspath(source)


def _parquet(source: Source, max_rows: int | None, max_id: int) -> pa.Table:
    """The columns read, footer first and under a byte budget (:mod:`.parquet`)."""
    names = open_parquet(source).schema_arrow.names
    _require(names)
    bounds = {c: _bound(c, max_id) for c in COLUMNS if c in names}
    return read_bounded(source, bounds, max_rows=max_rows, max_problems=MAX_PROBLEMS)


def _bound(column: str, max_id: int) -> Bound:
    if column in SCORE_COLUMNS:
        return Bound()
    if column == "match_key":
        return Bound(MAX_RULE_CHARS, _rule_words)
    return Bound(max_id, lambda most: refusal("id", most))


def _rule_words(most: int) -> str:
    return f"longer than {most:,} characters (a rule; pairs.rule holds {most:,})"


def count_rows(path) -> int:
    """The pairs in a file without reading them: Parquet's row count (its footer), else the
    CSV's lines; :class:`PredictionsError` for a Parquet file whose footer cannot be read."""
    with open(path, "rb") as fh:
        if fh.read(4) == _PARQUET_MAGIC:
            return open_parquet(os.fspath(path)).metadata.num_rows
        fh.seek(0)
        lines = sum(block.count(b"\n") for block in iter(lambda: fh.read(1 << 22), b""))
    return max(lines - 1, 0)  # the header


def _csv(source: Source, head: bytes) -> pa.Table:
    text = head.removeprefix(b"\xef\xbb\xbf").split(b"\n", 1)[0].decode("utf-8", "replace")
    delimiter = max(_DELIMITERS, key=text.count)
    header = [h.strip().strip('"') for h in text.rstrip("\r").split(delimiter)]
    _require(header)
    present = [c for c in COLUMNS if c in header]
    try:
        return pacsv.read_csv(
            _buffer(source) if not isinstance(source, bytes) else io.BytesIO(source),
            parse_options=pacsv.ParseOptions(delimiter=delimiter, newlines_in_values=True),
            convert_options=pacsv.ConvertOptions(
                include_columns=present,
                column_types={c: pa.string() for c in present},
                strings_can_be_null=False,
            ),
        )
    except pa.ArrowInvalid as exc:
        # pyarrow's messages may quote the offending row: only its counts are repeated.
        counts = re.search(r"Expected (\d+) columns?, got (\d+)", str(exc))
        if counts:
            raise PredictionsError(
                [f"a row has {counts[2]} fields where the header has {counts[1]}"]
            ) from None
        raise PredictionsError(
            ["the file cannot be read as CSV (UTF-8, a header row, one pair per row)"]
        ) from None


def _require(names) -> None:
    problems = [f"column {c!r} is missing" for c in ID_COLUMNS if c not in names]
    if not any(c in names for c in SCORE_COLUMNS):
        problems.append("give 'match_probability' or 'match_weight' (or both)")
    if sum(c in names for c in SOURCE_COLUMNS) == 1:
        problems.append("give both 'source_dataset_l' and 'source_dataset_r', or neither")
    if problems:
        raise PredictionsError(problems)


def _strings(table: pa.Table, name: str) -> pa.ChunkedArray:
    column = table.column(name)
    if not pa.types.is_string(column.type) and not pa.types.is_large_string(column.type):
        column = pc.cast(column, pa.string())
    return column


def _columns(table: pa.Table, fmt: str, max_id: int) -> ScoredPairs:
    problems: list[str] = []
    names = table.column_names
    text = {
        name: string_array(_strings(table, name))
        for name in (*ID_COLUMNS, *SOURCE_COLUMNS)
        if name in names
    }
    trimmed = {name: pc.utf8_trim_whitespace(column) for name, column in text.items()}
    for name, column in text.items():
        empty = pc.or_kleene(pc.is_null(column), pc.equal(pc.utf8_length(trimmed[name]), 0))
        _flag(problems, empty, name, "empty")
        _flag(problems, pc.greater(pc.utf8_length(column), max_id), name, refusal("id", max_id))
    scores = {name: _numbers(table, name, problems) for name in SCORE_COLUMNS if name in names}
    probability, weight = scores.get("match_probability"), scores.get("match_weight")
    if probability is not None:
        outside = ~np.isnan(probability) & ((probability < 0) | (probability > 1))
        _flag(problems, outside, "match_probability", "outside 0..1")
    if problems:
        raise PredictionsError(problems)
    if probability is None:
        probability = 1.0 / (1.0 + np.exp2(-weight))
    if weight is None:
        with np.errstate(divide="ignore"):
            weight = np.log2(probability) - np.log2(1.0 - probability)
    key = None
    if "match_key" in names:
        key = string_array(_strings(table, "match_key"))
        too_long = pc.greater(pc.utf8_length(key), MAX_RULE_CHARS)
        _flag(problems, too_long, "match_key", _rule_words(MAX_RULE_CHARS))
        if problems:
            raise PredictionsError(problems)
        key = pc.if_else(pc.equal(key, ""), pa.scalar(None, key.type), key)
    return ScoredPairs(
        trimmed["unique_id_l"], trimmed["unique_id_r"], probability, weight,
        text.get("source_dataset_l"), text.get("source_dataset_r"), key, fmt,
    )  # fmt: skip


def _numbers(table: pa.Table, name: str, problems: list[str]) -> np.ndarray:
    """The column as float64; a missing or non-numeric cell or an infinity is a problem."""
    column = table.column(name)
    if not (pa.types.is_floating(column.type) or pa.types.is_integer(column.type)):
        column = pc.utf8_trim_whitespace(_strings(table, name))
    try:
        values = pc.cast(column, pa.float64()).to_numpy(zero_copy_only=False)
    except pa.ArrowInvalid:  # some cell is not a number: find which, one by one
        values = np.array([_float(cell) for cell in column.to_pylist()], dtype=float)
    values = np.asarray(values, dtype=float)
    _flag(problems, ~np.isfinite(values), name, "missing or not a finite number")
    return values


def _float(cell) -> float:
    try:
        return float(cell)
    except (TypeError, ValueError):
        return np.nan


def _flag(problems: list[str], mask, column: str, message: str) -> None:
    """Add a problem per row where ``mask`` holds (up to the limit), then how many in all."""
    if isinstance(mask, pa.ChunkedArray | pa.Array):
        mask = pc.fill_null(mask, False).to_numpy(zero_copy_only=False)
    rows = np.flatnonzero(np.asarray(mask, dtype=bool))
    room = max(0, MAX_PROBLEMS - len(problems))
    problems.extend(f"row {row + 1}, column {column!r}: {message}" for row in rows[:room])
    if len(rows) > room:
        problems.append(f"column {column!r}: {message} in {len(rows):,} rows in all")
