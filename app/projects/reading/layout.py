"""Whether a file's first row is a header, and names for the columns of one without.

:func:`guess_layout` reads the first rows of a file and votes column by column, as a person
glancing at it would: a first-row value that is text above a column of numbers or dates (``ID``
over ``17``, ``dob`` over ``07/04/1946``), or of another length than a column whose values all
have one length (``sex`` over ``M``/``F``), says *header*; a first-row value that is a number
or date like the rest of its column, that is blank, or that repeats further down, says *data*.
A tie keeps the header (the common case, and what every tool assumes). The manager can always
override the guess.

A file without a header needs column names. :func:`default_names` proposes the names of
MINDFIRL's headerless pair-display files when the file has their shape (two consecutive rows
per pair id in the first column, 18 columns as in ``mindfirl_2025/section2.csv`` and
``ppirl.csv``, or 28 as in ``production_p1_pf.csv``; layouts in
``/work/shared/data/mindfirl/README.md``), the header of another file of the same width, or
``column_1``, ``column_2``, ...
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Sequence
from dataclasses import dataclass

from app.projects.reading.csvio import Source, open_rows

__all__ = ["MINDFIRL_LAYOUTS", "Layout", "check_names", "default_names", "guess_layout"]

#: Rows read to guess the layout (the first one included).
SAMPLE_ROWS = 50
#: Widest first row voted on; a wider file is refused at upload (app.limits), so the vote
#: over its 50 rows of thousands of columns would be wasted.
WIDTH_SAMPLED = 1_000
_NUMBER = re.compile(r"^[+-]?(\d+([.,]\d*)?|[.,]\d+)([eE][+-]?\d+)?$")
_DATE = re.compile(r"^\d{1,4}[-/.]\d{1,2}[-/.]\d{1,4}$")

_HELPERS = ("voter_reg_num", "first_name", "last_name", "dob", "sex", "race")
#: Column names of MINDFIRL's headerless pair-display ("pf") files, by width.
MINDFIRL_LAYOUTS: dict[int, tuple[str, ...]] = {
    # mindfirl_2025 (section2.csv, ppirl.csv): the user-study format, ground truth last.
    18: (
        "PairID", "voter_reg_num", "FFreq", "first_name", "last_name", "LFreq", "dob",
        "sex", "race", *(f"helper_{n}" for n in _HELPERS), "scenario", "group", "truth",
    ),
    # mindfirl (production_p1_pf.csv, production_p2_pf.csv): 11 attributes, their helper
    # strings and three zeros.
    28: (
        "PairID", "voter_reg_num", "FFreq", "first_name", "last_name", "LFreq", "dob",
        "sex", "race", *(f"info{i}" for i in range(1, 6)),
        *(f"helper_{n}" for n in (*_HELPERS, *(f"info{i}" for i in range(1, 6)))),
        "zero_1", "zero_2", "zero_3",
    ),
}  # fmt: skip
MAX_NAME_CHARS = 100


@dataclass(frozen=True)
class Layout:
    """What the first rows of a file say: header or not, its width, its first rows.

    ``widest`` is the most fields of a row among those read and ``widest_line`` its line
    (the upload refuses a file wider than a project can be before a page shows it).
    """

    has_header: bool
    width: int
    first: list[list[str]]
    widest: int = 0
    widest_line: int | None = None


def _kind(value: str) -> str:
    if _NUMBER.match(value):
        return "number"
    if _DATE.match(value):
        return "date"
    return "text"


def _votes(first: list[str], rest: list[list[str]]) -> tuple[int, int]:
    """(votes for a header, votes for data) over the columns of ``first``."""
    header = data = 0
    for c, raw in enumerate(first):
        value = raw.strip()
        below = [r[c].strip() for r in rest if len(r) > c and r[c].strip()]
        if not value:
            data += 1
            continue
        if not below:
            continue
        kinds = [_kind(v) for v in below]
        typed = max(("number", "date"), key=kinds.count)
        if kinds.count(typed) >= 0.8 * len(kinds):
            if _kind(value) == "text":
                header += 1
            else:
                data += 1
        elif value in below:
            data += 1
        elif len({len(v) for v in below}) == 1:
            header += len(value) != len(below[0])
            data += len(value) == len(below[0])
    return header, data


def guess_layout(source: Source) -> Layout:
    """Read the first rows of ``source`` and guess whether the first is a header.

    Raises :class:`~app.projects.reading.csvio.CsvImportError` for a file that cannot be read
    (empty, binary, not UTF-8, ...).
    """
    with open_rows(source) as stream:
        read = list(itertools.islice(stream.rows, SAMPLE_ROWS))
    if not read:
        return Layout(True, 0, [])
    rows = [fields for _, fields in read]
    widest_line, widest = max(read, key=lambda row: len(row[1]))
    first, rest = rows[0], rows[1:]
    if len(first) > WIDTH_SAMPLED:  # no vote over a file too wide to import (it is refused)
        return Layout(True, len(first), rows[:6], len(widest), widest_line)
    header, data = _votes(first, rest)
    return Layout(header >= data, len(first), rows[:6], len(widest), widest_line)


def _pairs_in_first_column(rows: list[list[str]]) -> bool:
    ids = [r[0].strip() for r in rows if r]
    even = len(ids) - len(ids) % 2
    return even >= 2 and all(ids[i] and ids[i] == ids[i + 1] for i in range(0, even, 2))


def default_names(layout: Layout, header: Sequence[str] | None = None) -> list[str]:
    """Names for the columns of a file without a header (see the module docstring).

    ``header`` is the header of another file of the same upload, used when its width fits.
    """
    width = layout.width
    if header is not None and len(header) == width:
        return [h.strip() for h in header]
    names = MINDFIRL_LAYOUTS.get(width)
    if names is not None and _pairs_in_first_column(layout.first):
        return list(names)
    return [f"column_{i}" for i in range(1, width + 1)]


def check_names(names: Sequence[str], width: int | None) -> list[str]:
    """Problems with column names given for a headerless file of ``width`` fields."""
    problems = []
    if width is not None and len(names) != width:
        problems.append(f"give {width} column names (one per column of the file), not {len(names)}")
    for i, name in enumerate(names, start=1):
        if not name:
            problems.append(f"column {i} needs a name")
        elif len(name) > MAX_NAME_CHARS:
            problems.append(f"the name of column {i} is longer than {MAX_NAME_CHARS} characters")
    repeated = sorted({n for n in names if n and list(names).count(n) > 1})
    if repeated:
        problems.append(f"column names must differ: {', '.join(repeated)} repeated")
    return problems
