"""What checking an upload found, for the manager's confirmation page (never a value).

Record counts per file, the rows that will be left out (repeated ids under ``keep_first``),
the invalid dates kept as missing (``invalid_dates="missing"``), counted per column, whether
record ids were generated, pairs, blocks and name frequencies. Lists keep their first
:data:`LISTED` entries and count them all, so the page says "and N more".
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field, replace

from app.projects.reading.csvio import CsvImportError, ImportProblem

__all__ = ["LISTED", "Checked", "file_label", "labelled"]

LISTED = 100


@dataclass
class Checked:
    """What validation found (stored in the staged upload as plain JSON)."""

    records: dict[str, int] = field(default_factory=dict)
    dropped: list[str] = field(default_factory=list)
    dropped_total: int = 0
    missing: list[str] = field(default_factory=list)
    missing_total: int = 0
    missing_columns: dict[str, int] = field(default_factory=dict)
    generated_ids: bool = False
    pairs: int = 0
    blocks: int = 0
    frequencies: int = 0

    def note_dropped(self, label: str, problems: Iterable[ImportProblem]) -> None:
        """Rows of ``label``'s file left out on purpose (repeated ids)."""
        for problem in problems:
            self.dropped_total += 1
            if len(self.dropped) < LISTED:
                self.dropped.append(str(replace(problem, file=label)))

    def note_missing(self, label: str, problems: Iterable[ImportProblem]) -> None:
        """Values of ``label``'s file that could not be read and are kept as missing."""
        for problem in problems:
            self.missing_total += 1
            key = f"{label}, column {problem.column}"
            self.missing_columns[key] = self.missing_columns.get(key, 0) + 1
            if len(self.missing) < LISTED:
                self.missing.append(str(replace(problem, file=label)))

    @property
    def clean(self) -> bool:
        """Every row is imported as it is: none left out, no value replaced by missing."""
        return not self.dropped_total and not self.missing_total


def labelled(label, function, *args, **kwargs):
    """Call ``function``, prefixing every problem's message with the file it is about."""
    try:
        return function(*args, **kwargs)
    except CsvImportError as exc:
        problems = [ImportProblem(p.line, p.column, p.message, label) for p in exc.problems]
        raise CsvImportError(problems, truncated=exc.truncated, total=exc.total) from None


_FILE_LABELS = {"pairs": "pair file", "freq": "name frequencies"}


def file_label(label: str) -> str:
    """How messages name a staged file: ``file A``, ``file B``, ``pair file``, ..."""
    return _FILE_LABELS.get(label, f"file {label}")
