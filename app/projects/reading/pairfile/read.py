"""Parse MINDFIRL's "create by pair file" uploads: the pair file and the name frequencies.

The pair file (``pairfile_extra.csv``) has a header
``PairID,GroupID,DB,ID,<attributes...>`` and two rows per pair: ``DB`` is ``A`` or ``B``
(the source), ``ID`` the record's id within that source and ``GroupID`` the block. A record
may sit in several pairs (the demo file repeats records A1/B2, A4/B3 and A5/B7 in each of
its 12 pairs), so its rows must agree. The name-frequency file (``name_freq.csv``) has no
header: ``F|L,name,count`` per line (F = first name, L = last name).

MINDFIRL's internal pair file (``production_p1_pairfile.csv``: ``ID,...,type,file_id,cntfn,
cntln,same``) is detected from its header and read by
:mod:`app.projects.reading.pairfile.internal`, with its quirks (docs/pairfiles.md). Its display
files (``production_p1_pf.csv``, ``mindfirl_2025/section2.csv``: no header row, ``PairID`` but
no ``DB`` or ``GroupID`` once their columns are named) are read by
:mod:`app.projects.reading.pairfile.display`.

Both readers share the encoding, dialect and line-length checks of
:mod:`app.projects.reading.csvio` and raise
:class:`~app.projects.reading.csvio.CsvImportError` listing every problem with its line number.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field

from app.core.disclosure import AttributeType, normalize
from app.limits import Limits
from app.projects.reading.cells import CellReader
from app.projects.reading.csvio import CsvImportError, ImportProblem, Source, open_rows
from app.projects.reading.pairfile.display import (
    DISPLAY_STRUCTURE,
    is_display_header,
    read_display_rows,
)
from app.projects.reading.pairfile.internal import (
    COUNT_MESSAGE,
    INTERNAL_STRUCTURE,
    MAX_COUNTED_NAME,
    is_count,
    is_internal_header,
    read_internal_rows,
)
from app.projects.reading.problems import ProblemList

__all__ = [
    "NOT_ATTRIBUTES",
    "PAIRFILE_ATTRIBUTES",
    "NameFrequencies",
    "Pair",
    "PairFile",
    "read_name_frequencies",
    "read_pairfile",
]

STRUCTURE = ("PairID", "GroupID", "DB", "ID")
_IDS = ("PairID", "GroupID", "ID")  # bounded as ids (MAX_RECORD_ID_CHARS)
#: Columns of any pair-file format that are not record attributes.
NOT_ATTRIBUTES = frozenset(STRUCTURE) | frozenset(INTERNAL_STRUCTURE) | frozenset(DISPLAY_STRUCTURE)

#: Types of MINDFIRL's 11 attributes; any other attribute column is read as a string.
PAIRFILE_ATTRIBUTES: dict[str, AttributeType] = {
    "voter_reg_num": AttributeType.ID,
    "first_name": AttributeType.STRING,
    "last_name": AttributeType.STRING,
    "dob": AttributeType.DATE,
    "sex": AttributeType.CATEGORY,
    "race": AttributeType.CATEGORY,
    **{f"info{i}": AttributeType.STRING for i in range(1, 6)},
}


@dataclass(frozen=True, slots=True)
class Pair:
    """One pair to review: record ``id_a`` of source A against ``id_b`` of source B."""

    pair_id: str
    block_id: str
    id_a: str
    id_b: str


@dataclass(frozen=True)
class NameFrequencies:
    """How many people carry each first and last name (``{name: count}``)."""

    first: dict[str, int]
    last: dict[str, int]


@dataclass(frozen=True)
class PairFile:
    """A parsed pair file: attribute types, records per source (normalised), pairs, the
    name frequencies the file itself carries (MINDFIRL's internal and display formats), if
    any, and the invalid dates kept as missing."""

    attributes: dict[str, AttributeType]
    records_a: dict[str, dict[str, str | None]]
    records_b: dict[str, dict[str, str | None]]
    pairs: list[Pair]
    frequencies: NameFrequencies | None = None
    missing: list[ImportProblem] = field(default_factory=list)  # invalid dates kept missing


def read_pairfile(
    source: Source,
    *,
    attributes: Mapping[str, AttributeType] = PAIRFILE_ATTRIBUTES,
    max_errors: int = 100,
    names: Sequence[str] | None = None,
    formats: Mapping[str, str] | None = None,
    invalid_dates: str = "error",
    pair_truth: str | None = None,
    limits: Limits | None = None,
) -> PairFile:
    """Parse and check a MINDFIRL pair file.

    Checks: the four structure columns exist; every row has the header's field count, a
    pair id, a block id, a record id and ``DB`` of ``A`` or ``B``; each pair has exactly one
    A row and one B row, in one block; a record repeated across pairs has the same values;
    dates are real dates. Pairs keep the order of their first row. Every problem is counted,
    the first ``max_errors`` listed.

    ``names`` are the column names of a file without a header row (MINDFIRL's display files;
    :mod:`app.projects.reading.pairfile.display`); ``formats`` and ``invalid_dates`` read
    dates as :class:`~app.projects.reading.cells.CellReader` does; ``pair_truth`` names a
    display file's per-pair ground-truth column. ``limits`` (:mod:`app.limits`; its defaults
    when None) bounds every row's ids, each of its values and all of them together.
    """
    problems = ProblemList(max_errors)
    with open_rows(source) as stream:
        rows = _with_header(stream.rows, names)
        header_line, header = next(rows)
        names = [h.strip() for h in header]
        if is_internal_header(names):
            return _internal(
                header_line, names, rows, attributes, problems, formats, invalid_dates, limits
            )
        if is_display_header(names):
            cells = _cells(names, DISPLAY_STRUCTURE, attributes, formats, invalid_dates, limits)
            found = read_display_rows(names, rows, cells, problems, pair_truth)
            return PairFile(
                cells.kinds, found.records_a, found.records_b,
                [Pair(pair_id, "", a, b) for pair_id, a, b in found.pairs],
                _frequencies(found.counts), cells.missing,
            )  # fmt: skip
        missing = [c for c in STRUCTURE if c not in names]
        if missing:
            found = ", ".join(repr(n) for n in names[:6])
            message = f"missing column(s) {', '.join(missing)}; found {found}"
            raise CsvImportError([ImportProblem(header_line, None, message)])
        cells = _cells(names, STRUCTURE, attributes, formats, invalid_dates, limits)
        kinds = cells.kinds
        records: dict[str, dict[str, dict[str, str | None]]] = {"A": {}, "B": {}}
        first_line: dict[tuple[str, str], int] = {}
        members: dict[str, dict[str, tuple[int, str]]] = {}
        blocks: dict[str, tuple[int, str]] = {}
        for line, fields in rows:
            if len(fields) != len(names):
                problems.add(line, None, f"expected {len(names)} fields, found {len(fields)}")
                continue
            row = dict(zip(names, (f.strip() for f in fields), strict=True))
            for column in STRUCTURE:
                if not row[column]:
                    problems.add(line, column, f"empty {column}")
            values = cells.read(line, row, problems, {c: row[c] for c in _IDS})
            for column in cells.long_ids:
                row[column] = ""  # refused, and not paired with any other row
            pair_id, block, db, record_id = (row[c] for c in STRUCTURE)
            if db.upper() not in ("A", "B") and db:
                problems.add(line, "DB", "DB must be A or B")
            if not all((pair_id, block, record_id)) or db.upper() not in ("A", "B"):
                continue
            db = db.upper()
            side = members.setdefault(pair_id, {})
            if db in side:
                problems.add(
                    line, "DB", f"this pair has a second {db} row (the first on line {side[db][0]})"
                )
                continue
            side[db] = (line, record_id)
            seen_line, seen_block = blocks.setdefault(pair_id, (line, block))
            if seen_block != block:
                message = f"this pair is in another block on line {seen_line}"
                problems.add(line, "GroupID", message)
            if values is None:
                continue
            known = records[db].setdefault(record_id, values)
            first_line.setdefault((db, record_id), line)
            diff = [name for name in kinds if known[name] != values[name]]
            if diff:
                message = (
                    f"this {db} record (the ID of line {first_line[db, record_id]}) differs "
                    f"from it in {', '.join(diff)}"
                )
                problems.add(line, diff[0], message)
    pairs = []
    for pair_id, side in members.items():
        for db in ("A", "B"):
            if db not in side:
                ((line, _),) = side.values()
                problems.add(line, "DB", f"this pair has no {db} row")
        if len(side) == 2:
            pairs.append(Pair(pair_id, blocks[pair_id][1], side["A"][1], side["B"][1]))
    problems.raise_if_any()
    return PairFile(kinds, records["A"], records["B"], pairs, None, cells.missing)


def _cells(names, structure, attributes, formats, invalid_dates, limits=None) -> CellReader:
    kinds = {n: AttributeType(attributes.get(n, "string")) for n in names if n not in structure}
    return CellReader(kinds, formats, invalid_dates, limits)


def _frequencies(counts: dict[str, dict[str, int]]) -> NameFrequencies | None:
    return NameFrequencies(counts["F"], counts["L"]) if any(counts.values()) else None


def _internal(
    header_line, names, rows, attributes, problems, formats, invalid_dates, limits
) -> PairFile:
    """MINDFIRL's internal format (see :mod:`app.projects.reading.pairfile.internal`)."""
    cells = _cells(names, INTERNAL_STRUCTURE, attributes, formats, invalid_dates, limits)
    records_a, records_b, pairs, counts = read_internal_rows(
        header_line, names, rows, cells, problems
    )
    pairs = [Pair(pair_id, "", id_a, id_b) for pair_id, id_a, id_b in pairs]
    return PairFile(cells.kinds, records_a, records_b, pairs, _frequencies(counts), cells.missing)


def _with_header(
    rows: Iterator[tuple[int, list[str]]], names: Sequence[str] | None = None
) -> Iterator[tuple[int | None, list[str]]]:
    """Yield the header (read, or the ``names`` given) and the rows; raise a clear error for
    an empty or header-only file."""
    header = (None, list(names)) if names is not None else next(rows, None)
    if header is None:
        raise CsvImportError([ImportProblem(None, None, "the file is empty")])
    yield header
    empty = True
    for row in rows:
        empty = False
        yield row
    if empty:
        message = "the file has no rows" if names else "the file has a header row but no data rows"
        raise CsvImportError([ImportProblem(header[0], None, message)])


def read_name_frequencies(source: Source, *, max_errors: int = 100) -> NameFrequencies:
    """Parse a name-frequency file: no header, ``F|L,name,count`` per line.

    Names are normalised like string attributes so they match record values. Counts are
    any non-negative integer (MINDFIRL's demo has 143 and 1006). A name listed twice for the
    same kind is an error.
    """
    tables: dict[str, dict[str, int]] = {"F": {}, "L": {}}
    lines: dict[tuple[str, str], int] = {}
    problems = ProblemList(max_errors)
    with open_rows(source, delimiter=",") as stream:
        for line, fields in stream.rows:
            if len(fields) != 3:
                problems.add(line, None, f"expected 3 fields (F|L,name,count), found {len(fields)}")
                continue
            kind, raw_name, raw_count = (f.strip() for f in fields)
            name = normalize(AttributeType.STRING, raw_name)
            if kind.upper() not in tables:
                problems.add(line, None, "the first field must be F or L")
            elif name is None:
                problems.add(line, None, "empty name")
            elif len(name) > MAX_COUNTED_NAME:
                problems.add(line, None, f"a name is at most {MAX_COUNTED_NAME} characters")
            elif not is_count(raw_count):
                problems.add(line, None, f"count {COUNT_MESSAGE}")
            elif (kind.upper(), name) in lines:
                message = f"this name is listed again (line {lines[kind.upper(), name]})"
                problems.add(line, None, message)
            else:
                lines[kind.upper(), name] = line
                tables[kind.upper()][name] = int(raw_count)
    problems.raise_if_any()
    if not lines:
        raise CsvImportError([ImportProblem(None, None, "the file is empty")])
    return NameFrequencies(tables["F"], tables["L"])
