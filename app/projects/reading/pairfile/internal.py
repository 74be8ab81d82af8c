"""MINDFIRL's internal pair file (``production_p1_pairfile.csv``), read as MINDFIRL read it.

Header ``ID,<attributes...>,type,file_id,cntfn,cntln,same``; rows that share an ``ID`` form
one pair. MINDFIRL (``get_pair_file_extra.pre_processing`` and ``make_list_dict``) wrote and
read it with these quirks, kept here:

- **Row order decides the sides.** Rows are grouped by ``ID`` in the order met; the first row
  of a group is the left record (source A), the second the right one (source B). MINDFIRL
  counted the first row's names in database A. ``file_id`` is not used: in MINDFIRL's own
  file the first row is labelled ``1-B`` although it is database A's record.
- ``type`` (always ``1``) and ``file_id`` are dropped, as MINDFIRL's display file drops them.
- ``cntfn`` / ``cntln``: how often the row's first / last name occurs in its database. They
  become the project's name frequencies (the count shown by the frequency markup); a name
  given two different counts (once from A, once from B) keeps the larger.
- ``same`` is **not** ground truth: MINDFIRL's ``pre_processing`` appends ``0`` to every row.
  It is checked to be ``0``/``1``/empty and then dropped, never stored or shown; use a truth
  file (``pair_id,match`` with the file's ``ID``) for risk against utility.
- A record repeated across pairs (same side, same values) is stored once; MINDFIRL stored
  one copy per row.
- MINDFIRL paired the first row of an ``ID`` with every later one and silently skipped an
  ``ID`` with one row; here an ``ID`` must have exactly two rows, otherwise it is an error.

Errors name line and column, never a value of the file.
"""

from __future__ import annotations

from collections.abc import Mapping

from app.core.disclosure import AttributeType, normalize
from app.projects.reading.csvio import CsvImportError, ImportProblem

__all__ = [
    "COUNT_MESSAGE",
    "INTERNAL_STRUCTURE",
    "MAX_COUNT",
    "MAX_COUNTED_NAME",
    "count_names",
    "is_count",
    "is_internal_header",
    "read_internal_rows",
]

#: A pair, block or record id longer than ``MAX_RECORD_ID_CHARS`` (``pairs.external_id``,
#: ``pairs.block`` and ``records.external_id`` are VARCHAR(100)) is refused, never cut: two ids
#: cut to the same 100 characters would be one. A record id made from a pair id
#: (``<PairID>-A``) takes two more characters (:data:`SIDE_ROOM`).
SIDE_ROOM = 2


#: Columns of the internal format that are not record attributes.
INTERNAL_STRUCTURE = ("ID", "type", "file_id", "cntfn", "cntln", "same")
#: Any of these in a header without ``PairID`` means the internal format.
_MARKERS = ("file_id", "cntfn", "cntln", "same")
_COUNTS = {"cntfn": ("F", "first_name"), "cntln": ("L", "last_name")}
#: Largest name count (``name_frequencies.count`` is a 32-bit column).
MAX_COUNT = 2**31 - 1
#: Longest name a count is kept for (``name_frequencies.name`` is VARCHAR(200)).
MAX_COUNTED_NAME = 200
COUNT_MESSAGE = f"must be a whole number from 0 to {MAX_COUNT:,}"


def is_count(raw: str) -> bool:
    """True for a name count the database can hold."""
    return raw.isascii() and raw.isdigit() and int(raw) <= MAX_COUNT


def is_internal_header(names: list[str]) -> bool:
    """True when ``names`` (a stripped header) is MINDFIRL's internal pair-file header."""
    return "PairID" not in names and any(m in names for m in _MARKERS)


def read_internal_rows(header_line: int | None, names: list[str], rows, cells, problems):
    """Check and group the rows after the header; return
    ``(records_a, records_b, pairs, frequencies)`` with pairs as ``(pair_id, id_a, id_b)``
    and frequencies as ``{"F": {name: count}, "L": {...}}``. ``cells`` (a
    :class:`~app.projects.reading.cells.CellReader`) reads the attributes; ``problems`` (a
    :class:`~app.projects.reading.problems.ProblemList`) collects what is wrong."""
    missing = [c for c in INTERNAL_STRUCTURE if c not in names]
    if missing:
        message = f"MINDFIRL internal pair file: missing column(s) {', '.join(missing)}"
        raise CsvImportError([ImportProblem(header_line, None, message)])
    kinds = cells.kinds
    groups: dict[str, list[tuple[int, dict[str, str | None] | None]]] = {}
    counts: dict[str, dict[str, int]] = {"F": {}, "L": {}}
    for line, fields in rows:
        if len(fields) != len(names):
            problems.add(line, None, f"expected {len(names)} fields, found {len(fields)}")
            continue
        row = dict(zip(names, (f.strip() for f in fields), strict=True))
        if not row["ID"]:
            problems.add(line, "ID", "empty pair ID")
            continue
        values = cells.read(line, row, problems, {"ID": row["ID"]}, {"ID": SIDE_ROOM})
        if cells.long_ids:
            continue
        if row["same"] not in ("", "0", "1"):
            problems.add(line, "same", "must be 0, 1 or empty")
        count_names(line, row, _COUNTS, counts, problems)
        groups.setdefault(row["ID"], []).append((line, values))
    records: dict[str, dict[str, dict[str, str | None]]] = {"A": {}, "B": {}}
    seen: dict[str, dict[tuple, str]] = {"A": {}, "B": {}}
    pairs = []
    for pair_id, members in groups.items():
        if len(members) != 2:
            lines = ", ".join(str(line) for line, _ in members)
            message = f"this pair has {len(members)} row(s) (line {lines}); it needs 2"
            problems.add(members[0][0], "ID", message)
            continue
        ids = []
        for side, (_, values) in zip(("A", "B"), members, strict=True):
            if values is None:
                break
            key = tuple(values[n] for n in kinds)
            record_id = seen[side].setdefault(key, f"{pair_id}-{side}")
            records[side].setdefault(record_id, values)
            ids.append(record_id)
        if len(ids) == 2:
            pairs.append((pair_id, ids[0], ids[1]))
    problems.raise_if_any()
    return records["A"], records["B"], pairs, counts


def count_names(line, row, columns: Mapping[str, tuple[str, str]], counts, problems) -> None:
    """Record the row's name counts: ``columns`` maps a count column to its kind and name
    column (``{"cntfn": ("F", "first_name")}``); the larger count of a name wins."""
    for column, (kind, attribute) in columns.items():
        raw = row[column]
        if not is_count(raw):
            problems.add(line, column, COUNT_MESSAGE)
            continue
        if attribute not in row:
            continue
        name = normalize(AttributeType.STRING, row[attribute])
        if name is not None:
            table = counts[kind]
            table[name] = max(table.get(name, 0), int(raw))
