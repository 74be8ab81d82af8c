"""MINDFIRL's pair *display* files: two consecutive rows per pair, no ``DB`` column.

The files MINDFIRL showed its workers (``production_p1_pf.csv``, 28 columns) and the 2025
user-study sets (``mindfirl_2025/section2.csv``, ``ppirl.csv``, 18 columns) have no header row;
once their columns are named (:data:`app.projects.reading.layout.MINDFIRL_LAYOUTS` proposes
MINDFIRL's names), a header with ``PairID`` and neither ``DB`` nor ``GroupID`` is this
format:

- **Rows in pairs.** The rows of a ``PairID`` (exactly two) are its record A and record B, in
  file order.
- **Record ids.** An ``ID`` column, when there is one, gives them (a record repeated across
  pairs on the same side must then agree); otherwise (the 2025 files) each row is a record of
  its own, ``<PairID>-A`` / ``<PairID>-B``.
- ``FFreq`` / ``LFreq``: how often the row's first / last name occurs; they become the
  project's name frequencies (a name with two counts keeps the larger, as in the internal
  format), an uploaded frequency file wins.
- **Ground truth per pair.** The 2025 files end with the pair's truth, ``1`` (same person) or
  ``0``, on both rows. Marked as the ground truth (``pair_truth``), it is stored as a cluster
  id, which is what the rest of the application reads: ``<PairID>`` on both records of a
  match, ``<PairID>-A`` and ``<PairID>-B`` otherwise (blank stays unknown).
- The helper strings (``helper_*``, MINDFIRL's precomputed partial displays) and the
  trailing zeros are ordinary columns the mapping form leaves out by default.

Errors name line and column, never a value of the file.
"""

from __future__ import annotations

from dataclasses import dataclass

from app.core.disclosure import AttributeType, name_columns, normalize
from app.projects.reading.pairfile.internal import COUNT_MESSAGE, SIDE_ROOM, is_count

__all__ = ["DISPLAY_STRUCTURE", "DisplayRows", "is_display_header", "read_display_rows"]

#: Columns of the display format that are not record attributes.
DISPLAY_STRUCTURE = ("PairID", "ID", "FFreq", "LFreq")
_TRUTH = ("0", "1", "")


def is_display_header(names: list[str]) -> bool:
    """True when ``names`` (a stripped header) is the display format (see the module)."""
    return "PairID" in names and "DB" not in names and "GroupID" not in names


@dataclass
class DisplayRows:
    records_a: dict[str, dict[str, str | None]]
    records_b: dict[str, dict[str, str | None]]
    pairs: list[tuple[str, str, str]]  # (pair id, id in A, id in B)
    counts: dict[str, dict[str, int]]  # {"F": {name: count}, "L": {...}}


def read_display_rows(
    names: list[str], rows, cells, problems, pair_truth: str | None = None
) -> DisplayRows:
    """Check and pair the rows after the header ``names`` (``cells`` reads the attributes,
    ``problems`` collects what is wrong); see the module docstring."""
    groups: dict[str, list[tuple[int, dict | None, str]]] = {}
    counts: dict[str, dict[str, int]] = {"F": {}, "L": {}}
    frequency_of = dict(zip(("F", "L"), name_columns(cells.kinds), strict=True))
    for line, fields in rows:
        if len(fields) != len(names):
            problems.add(line, None, f"expected {len(names)} fields, found {len(fields)}")
            continue
        row = dict(zip(names, (f.strip() for f in fields), strict=True))
        pair_id = row["PairID"]
        if not pair_id:
            problems.add(line, "PairID", "empty PairID")
            continue
        # a record without an ID is named <PairID>-A or -B
        ids = {"PairID": pair_id, "ID": row.get("ID", "")}
        values = cells.read(line, row, problems, ids, {"PairID": SIDE_ROOM})
        if cells.long_ids:
            continue
        if pair_truth is not None and row.get(pair_truth, "") not in _TRUTH:
            problems.add(line, pair_truth, "the ground truth of a pair is 1 (same) or 0")
        _count(line, row, frequency_of, counts, problems)
        groups.setdefault(pair_id, []).append((line, values, row.get("ID", "")))
    found = DisplayRows({}, {}, [], counts)
    first_line: dict[tuple[str, str], int] = {}
    for pair_id, members in groups.items():
        if len(members) != 2:
            lines = ", ".join(str(line) for line, _, _ in members)
            message = f"this pair has {len(members)} row(s) (line {lines}); it needs 2"
            problems.add(members[0][0], "PairID", message)
            continue
        _truth(pair_id, members, pair_truth, problems)
        ids = []
        for side, (line, values, given) in zip("AB", members, strict=True):
            if values is None:
                break
            record_id = given or f"{pair_id}-{side}"
            records = found.records_a if side == "A" else found.records_b
            known = records.setdefault(record_id, values)
            seen = first_line.setdefault((side, record_id), line)
            diff = [name for name in cells.kinds if known[name] != values[name]]
            if diff:
                message = f"this {side} record (the ID of line {seen}) differs from it in {diff[0]}"
                problems.add(line, diff[0], message)
            ids.append(record_id)
        if len(ids) == 2:
            found.pairs.append((pair_id, ids[0], ids[1]))
    problems.raise_if_any()
    return found


def _count(line, row, frequency_of, counts, problems) -> None:
    for column, kind in (("FFreq", "F"), ("LFreq", "L")):
        raw, attribute = row.get(column, ""), frequency_of[kind]
        if not raw:
            continue
        if not is_count(raw):
            problems.add(line, column, COUNT_MESSAGE)
        elif attribute is not None:
            name = normalize(AttributeType.STRING, row[attribute])
            if name is not None:
                counts[kind][name] = max(counts[kind].get(name, 0), int(raw))


def _truth(pair_id: str, members, column: str | None, problems) -> None:
    """Turn the pair's 0/1 truth into cluster ids on its two records (in place)."""
    if column is None:
        return
    (line_a, a, _), (line_b, b, _) = members
    if a is None or b is None:
        return
    mark_a, mark_b = a.get(column) or "", b.get(column) or ""
    if mark_a != mark_b:
        message = f"the two rows of this pair (lines {line_a} and {line_b}) give different truths"
        problems.add(line_b, column, message)
        return
    if mark_a == "1":
        a[column] = b[column] = pair_id
    elif mark_a == "0":
        a[column], b[column] = f"{pair_id}-A", f"{pair_id}-B"
