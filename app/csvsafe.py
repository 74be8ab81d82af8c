"""One CSV writer for every export: no reader sees a formula, or a row that is not there.

Every CSV the app serves (the project exports, the peer-tool labels, the KAPR report, every
chart's data) is written by :class:`SafeWriter`:

- a value a spreadsheet would read as a formula (``=``, ``+``, ``-``, ``@``, tab or CR first,
  or the full-width ``＝ ＋ － ＠`` that Excel and LibreOffice convert on entry; leading spaces
  do not hide them) gets a leading apostrophe (OWASP "CSV Injection"), unless the writer is
  told to keep values unchanged (ids that are a join key: :mod:`app.projects.exports.peers`);
- a cell holding a comma, a double quote, a CR or an LF, that starts like a formula, or that
  has blanks around it, is written in double quotes (quotes doubled).

Python's ``csv.writer`` quotes a field only for the characters of its own line terminator:
with ``"\\n"`` a bare CR was written unquoted (``'\\r=1D5``), and a reader that ends rows at
CR (old Mac files, some spreadsheet imports) started a row at ``=1D5``, past the apostrophe.
Here a CR or LF is always inside quotes, so a reader that respects quotes (Python's ``csv``,
Excel, LibreOffice, DuckDB, one that splits rows at a bare CR) sees the rows that were
written. Numbers the app computed (``int``, ``float``: a negative match weight) are numeric
literals, written as they are.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import TextIO

__all__ = ["FORMULA_START", "SafeWriter", "is_formula", "neutralize", "writer"]

FORMULA_START = ("=", "+", "-", "@", "\t", "\r", "\uff1d", "\uff0b", "\uff0d", "\uff20")
_BLANKS = " \u3000"  # a space or an ideographic space before a formula does not stop it
_SPECIAL = frozenset(',"\r\n')
# A text written as it is, neutral or not: no comma, quote, CR or LF; a first character that
# starts no formula, is no blank and no apostrophe; no blank last. Most cells of an export
# (ids, source names, labels) are such texts: one match instead of the checks of
# :meth:`SafeWriter.general` (the ``splink`` export of a million pairs: 23.0 -> 19.9 s).
_NOT_IN = re.escape("".join(sorted(_SPECIAL)))
_NOT_FIRST = re.escape("".join(FORMULA_START) + _BLANKS + "'") + _NOT_IN
_PLAIN = re.compile(f"[^{_NOT_FIRST}](?:[^{_NOT_IN}]*[^{_NOT_IN}{re.escape(_BLANKS)}])?")


def is_formula(text: str) -> bool:
    """Whether a spreadsheet would read ``text`` as a formula (ASCII or full-width starter)."""
    return text.startswith(FORMULA_START) or text.lstrip(_BLANKS).startswith(FORMULA_START)


def _number(value: object) -> str | None:
    if isinstance(value, int | float) and not isinstance(value, bool):
        return repr(value) if isinstance(value, float) else str(value)
    return None


def neutralize(value: object) -> str:
    """Return ``value`` as a cell no spreadsheet evaluates: an apostrophe before a formula.

    A number the application computed (an ``int`` or ``float``) is written as it is.
    """
    number = _number(value)
    if number is not None:
        return number
    text = "" if value is None else str(value)
    return "'" + text if is_formula(text) else text


def _quoted(cell: str) -> str:
    if (
        not _SPECIAL.isdisjoint(cell)
        or is_formula(cell.removeprefix("'"))
        or cell != cell.strip(_BLANKS)
    ):
        return '"' + cell.replace('"', '""') + '"'
    return cell


class SafeWriter:
    """Write rows to ``out`` as described in the module (``csv.writer``'s ``writerow``)."""

    def __init__(self, out: TextIO, *, lineterminator: str = "\n", neutral: bool = True):
        self.out, self.lineterminator, self.neutral = out, lineterminator, neutral

    def cell(self, value: object) -> str:
        """``value`` as it is written between the commas."""
        if type(value) is str and _PLAIN.fullmatch(value):
            return value
        return self.general(value)

    def general(self, value: object) -> str:
        """:meth:`cell` without its shortcut for plain texts (every check made)."""
        number = _number(value)
        if number is not None:
            return number
        if self.neutral:
            return _quoted(neutralize(value))
        return _quoted("" if value is None else str(value))

    def writerow(self, row: Iterable[object]) -> None:
        cells = [self.cell(value) for value in row]
        if cells == [""]:  # a row of one empty cell is not a blank line (as csv.writer)
            cells = ['""']
        self.out.write(",".join(cells) + self.lineterminator)

    def writerows(self, rows: Iterable[Iterable[object]]) -> None:
        for row in rows:
            self.writerow(row)


def writer(out: TextIO, *, lineterminator: str = "\n", neutral: bool = True) -> SafeWriter:
    """A :class:`SafeWriter` on ``out``; ``neutral=False`` keeps values unchanged (quoted)."""
    return SafeWriter(out, lineterminator=lineterminator, neutral=neutral)
