"""Validate and normalise an upload's rows a batch at a time, column by column.

Row checks (field count, id, duplicate id, source) run per row; normalisation runs per
column over the whole batch, through a per-column memo (names, dates and categories repeat:
a million people have some tens of thousands of first names), so each distinct raw value
is normalised once. Problems come out in line order, and within a line in the order the row
checks and then the mapped columns are listed. No problem message quotes a value.

A date column may have its own layout (``mapping.formats``, :mod:`app.core.disclosure.dates`); with
``mapping.invalid_dates == "missing"`` a value that is not a date in it is stored as missing
and listed in :attr:`Batch.missing` rather than rejected. Without an id column
(``mapping.id_column is None``) each record's id is made from its line: ``line-<n>``.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

from app.core.disclosure import MISSING_TOKENS, AttributeType, normalize, normalize_date
from app.limits import Limits
from app.projects.reading.csvio import ImportProblem

__all__ = ["Batch", "scan_batches"]

#: Distinct raw values remembered per column (bounds the memo of a column of unique values).
_MEMO_SIZE = 1 << 17
#: Marks a value not normalised yet (``None`` is a normalised value).
_MISS = object()


@dataclass
class Batch:
    """The clean rows of one batch, column-wise, and the problems of the others.

    ``columns`` (identifying, normalised) and ``secret`` (sensitive, verbatim) map each
    mapped column to one value per clean row; ``identifying`` and ``sensitive`` give the
    same as one dict per row. ``problems`` holds ``(dropped, problem)`` in line order:
    ``dropped`` rows were skipped on purpose (``keep_first``), the others are errors.
    ``missing`` lists the invalid dates kept as missing (``invalid_dates="missing"``).
    """

    lines: list[int] = field(default_factory=list)
    ids: list[str] = field(default_factory=list)
    sources: list[str | None] = field(default_factory=list)
    columns: dict[str, list[str | None]] = field(default_factory=dict)
    secret: dict[str, list[str]] = field(default_factory=dict)
    problems: list[tuple[bool, ImportProblem]] = field(default_factory=list)
    missing: list[ImportProblem] = field(default_factory=list)

    def __len__(self) -> int:
        return len(self.ids)

    @property
    def errors(self) -> list[ImportProblem]:
        return [p for dropped, p in self.problems if not dropped]

    @property
    def identifying(self) -> list[dict[str, str | None]]:
        return _rows(self.columns, len(self))

    @property
    def sensitive(self) -> list[dict[str, str]]:
        return _rows(self.secret, len(self))


def _rows(columns: dict[str, list], count: int) -> list[dict]:
    if not columns:
        return [{} for _ in range(count)]
    names = list(columns)
    return [dict(zip(names, row, strict=True)) for row in zip(*columns.values(), strict=True)]


def id_column(values: list[str]) -> list[str | None]:
    """``[normalize(AttributeType.ID, v) for v in values]``, ASCII values inline.

    Ids are mostly distinct, so a memo would only cost; an ASCII value needs no NFC step.
    """
    return [
        (None if (text := v.strip()).lower() in MISSING_TOKENS else "".join(text.split()))
        if v.isascii()
        else normalize(AttributeType.ID, v)
        for v in values
    ]


class _Memo:
    """Normalise one column's raw values, each distinct value once (ids: see id_column).

    ``layout`` is a date column's format (None: the default layouts); with ``keep_missing``
    a date that cannot be read becomes missing and is listed in the ``missing`` argument of
    :meth:`column` instead of being a problem.
    """

    def __init__(self, kind, layout: str | None = None, keep_missing: bool = False) -> None:
        self.kind, self.known = AttributeType(kind), {}
        self.layout = layout if self.kind is AttributeType.DATE else None
        self.keep_missing = keep_missing and self.kind is AttributeType.DATE

    def normalize(self, value: str) -> str | None:
        if self.layout is not None:
            return normalize_date(value, self.layout)
        return normalize(self.kind, value)

    def column(self, values, lines, name, problems, missing=None) -> list[str | None]:
        if self.kind is AttributeType.ID:  # never raises
            return id_column(values)
        known = self.known
        get = known.get
        out = [get(value, _MISS) for value in values]  # most values are known: one C loop
        if _MISS not in out:
            return out
        for i, normal in enumerate(out):
            if normal is not _MISS:
                continue
            value = values[i]
            if value in known:  # repeated within this batch
                out[i] = known[value]
                continue
            try:
                normal = self.normalize(value)
            except ValueError as exc:
                if self.keep_missing and missing is not None:
                    message = f"{exc}: kept as missing"
                    missing.append(ImportProblem(lines[i], name, message))
                else:
                    problems.append((lines[i], False, ImportProblem(lines[i], name, str(exc))))
                out[i] = None
                continue
            if len(known) < _MEMO_SIZE:
                known[value] = normal
            out[i] = normal
        return out


def scan_batches(
    rows: Iterator[tuple[int, list[str]]],
    mapping: Any,
    at: dict[str, int],
    width: int,
    *,
    on_duplicate_id: str,
    batch_size: int,
    values: bool = True,
    named: bool = False,
    limits: Limits | None = None,
) -> Iterator[Batch]:
    """Yield one :class:`Batch` per ``batch_size`` data rows of ``rows``.

    With ``values=False`` (checking only) the batches' ``columns`` and ``secret`` are left
    empty; lines, ids and problems are the same. ``named``: the columns were named by the
    manager (a file without a header row), which the messages say.

    ``mapping`` is a :class:`~app.projects.reading.mapping.ColumnMapping`; ``at`` maps each
    mapped column to its field index.
    ``limits`` (:class:`app.limits.Limits`, its defaults when None) bounds each record's id,
    each of its mapped values and all of them together.
    """
    limits = limits or Limits()
    seen: dict[tuple[str | None, str], int] = {}
    keep = mapping.invalid_dates == "missing"
    memos = {
        name: _Memo(kind, mapping.formats.get(name), keep)
        for name, kind in mapping.identifying.items()
    }
    raw: list[tuple[int, list[str]]] = []
    state = (mapping, at, width, seen, memos, on_duplicate_id, values, named, limits)
    for item in rows:
        raw.append(item)
        if len(raw) >= batch_size:
            yield _batch(raw, *state)
            raw = []
    if raw:
        yield _batch(raw, *state)


def _generated(line: int) -> str:
    return f"line-{line}"


def _field(fields: list[str], at: int, n: int) -> str:
    return fields[at].strip() if at < n else ""


def _past_bounds(whole, lines, ids, at, mapping, limits: Limits, problems) -> None:
    """A problem for each bound a row passes, as :meth:`~app.limits.Limits.record_problems`
    says: only the rows that may pass one are asked (all their fields together longer than
    :meth:`~app.limits.Limits.screen`, or a long id: one C loop per row, rarely true)."""
    mapped = [(name, at[name]) for name in (*mapping.identifying, *mapping.sensitive)]
    screen, most_id, id_col = limits.screen(), limits.id_chars, mapping.id_column
    for fields, line, record_id in zip(whole, lines, ids, strict=True):
        long_id = id_col is not None and len(record_id) > most_id
        if not long_id and sum(map(len, fields)) <= screen:
            continue
        values = {name: fields[i] for name, i in mapped}
        given = {id_col: record_id} if id_col is not None else None
        for column, message in limits.record_problems(values, given):
            problems.append((line, False, ImportProblem(line, column, message)))


def _batch(raw, mapping, at, width, seen, memos, on_duplicate_id, values, named, limits) -> Batch:
    id_col, src_col = mapping.id_column, mapping.source_column
    id_at = at[id_col] if id_col is not None else None
    src_at = at[src_col] if src_col is not None else None
    problems: list[tuple[int, bool, ImportProblem]] = []
    missing: list[ImportProblem] = []
    whole: list[list[str]] = []  # rows with every field, normalised column-wise below
    lines, ids, sources, bad = [], [], [], set()
    for line, fields in raw:
        n = len(fields)
        # A generated id is unique and says where the row came from.
        record_id = _generated(line) if id_at is None else _field(fields, id_at, n)
        source = (fields[src_at].strip() if src_at < n else "") if src_at is not None else None
        first = (
            seen.setdefault((source, record_id), line) if record_id and id_at is not None else None
        )
        duplicate = first is not None and first != line
        if duplicate and on_duplicate_id == "keep_first":
            message = f"dropped: duplicate id, kept line {first}"
            problems.append((line, True, ImportProblem(line, id_col, message)))
            continue
        before = len(problems)
        if n != width:
            where = "one per column name" if named else "as in the header"
            message = f"expected {width} fields ({where}), found {n}"
            problems.append((line, False, ImportProblem(line, None, message)))
        if not record_id:
            problems.append((line, False, ImportProblem(line, id_col, "empty id")))
        if duplicate:
            message = f"duplicate id (first seen on line {first})"
            problems.append((line, False, ImportProblem(line, id_col, message)))
        if src_col is not None and not source:
            problems.append((line, False, ImportProblem(line, src_col, "empty source")))
        if len(problems) != before:
            bad.add(line)
        if n == width:
            whole.append(fields)
            lines.append(line)
            ids.append(record_id)
            sources.append(source)
    _past_bounds(whole, lines, ids, at, mapping, limits, problems)
    columns = {}
    for name in mapping.identifying:
        i = at[name]
        raw_values = [f[i] for f in whole]
        columns[name] = memos[name].column(raw_values, lines, name, problems, missing)
    sensitive = {}
    for name in mapping.sensitive:
        i = at[name]
        sensitive[name] = [f[i].strip() for f in whole]
    problems.sort(key=lambda p: p[0])  # stable: row checks first, then columns in order
    bad.update(line for line, dropped, _ in problems if not dropped)
    missing.sort(key=lambda p: p.line or 0)  # stable: in line order, columns in order
    batch = Batch(problems=[(dropped, p) for _, dropped, p in problems], missing=missing)
    if not bad:
        batch.lines, batch.ids, batch.sources = lines, ids, sources
    else:
        keep = [i for i, line in enumerate(lines) if line not in bad]
        batch.lines = [lines[i] for i in keep]
        batch.ids = [ids[i] for i in keep]
        batch.sources = [sources[i] for i in keep]
        columns = {name: [v[i] for i in keep] for name, v in columns.items()}
        sensitive = {name: [v[i] for i in keep] for name, v in sensitive.items()}
    if values:
        batch.columns, batch.secret = columns, sensitive
    return batch
