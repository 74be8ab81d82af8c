"""Read the attribute cells of one row of a pair file: types, date layouts, invalid dates.

Each attribute is normalised by its :class:`~app.core.disclosure.AttributeType`; a date
column may have a layout of its own (:mod:`app.core.disclosure.dates`), and with
``invalid_dates="missing"`` a date that cannot be read is stored as missing and listed
apart (``missing``) instead of being a problem. Each row is first checked against the bounds
of :class:`~app.limits.Limits` (its ids, each value, all of them together). Messages name the
column, never the value.
"""

from __future__ import annotations

from collections.abc import Mapping

from app.core.disclosure import AttributeType, normalize, normalize_date
from app.limits import Limits
from app.projects.reading.csvio import ImportProblem

__all__ = ["CellReader"]


class CellReader:
    """Normalise the attribute cells of rows given as ``{column: raw text}``."""

    def __init__(
        self,
        kinds: Mapping[str, AttributeType],
        formats: Mapping[str, str] | None = None,
        invalid_dates: str = "error",
        limits: Limits | None = None,
    ) -> None:
        self.kinds = dict(kinds)
        self.limits = limits or Limits()
        #: The id columns of the last row read that are past their bound.
        self.long_ids: set[str] = set()
        self.formats = {
            name: layout
            for name, layout in (formats or {}).items()
            if layout and self.kinds.get(name) is AttributeType.DATE
        }
        self.keep_missing = invalid_dates == "missing"
        self.missing: list[ImportProblem] = []

    def value(self, name: str, raw: str) -> str | None:
        layout = self.formats.get(name)
        return normalize_date(raw, layout) if layout else normalize(self.kinds[name], raw)

    def read(
        self,
        line: int,
        row: Mapping[str, str],
        problems,
        ids: Mapping[str, str] | None = None,
        room: Mapping[str, int] | None = None,
    ) -> dict[str, str | None] | None:
        """The normalised values of ``row``; ``None`` (and a problem each) if one is bad, or
        if the row passes a bound (:meth:`~app.limits.Limits.record_problems` of its values
        and of its ``ids``, ``room``: the characters an id takes more when stored). The id
        columns past their bound are :attr:`long_ids` until the next row."""
        values: dict[str, str | None] = {}
        found = self.limits.record_problems({n: row[n] for n in self.kinds}, ids, room=room)
        self.long_ids = {column for column, _ in found if ids and column in ids}
        for column, message in found:
            problems.add(line, column, message)
        bad = bool(found)
        for name, kind in self.kinds.items():
            try:
                values[name] = self.value(name, row[name])
            except ValueError as exc:
                if self.keep_missing and kind is AttributeType.DATE:
                    values[name] = None
                    self.missing.append(ImportProblem(line, name, f"{exc}: kept as missing"))
                else:
                    problems.add(line, name, str(exc))  # never quotes the value
                    bad = True
        return None if bad else values
