"""Read the attribute cells of one row of a pair file: types, date layouts, invalid dates.

Each attribute is normalised by its :class:`~app.core.disclosure.AttributeType`; a date
column may have a layout of its own (:mod:`app.core.disclosure.dates`), and with
``invalid_dates="missing"`` a date that cannot be read is stored as missing and listed
apart (``missing``) instead of being a problem. Messages name the column, never the value.
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
        self.limits = limits
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

    def read(self, line: int, row: Mapping[str, str], problems) -> dict[str, str | None] | None:
        """The normalised values of ``row``; ``None`` (and a problem each) if one is bad, or
        if they are longer together than ``limits`` allow (``MAX_RECORD_CHARS``)."""
        values: dict[str, str | None] = {}
        too_large = self.limits and self.limits.record_problem(row[n] for n in self.kinds)
        if too_large:
            problems.add(line, None, too_large)
        bad = bool(too_large)
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
