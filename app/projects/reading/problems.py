"""A list of an upload's problems that keeps the first ones and counts them all.

Every reader lists problems with their line and column; a bad file can have millions, so
only the first ``limit`` are kept, but all are counted so that the manager reads "and N
more" with the total, never a list that silently stops.
"""

from __future__ import annotations

from app.projects.reading.csvio import CsvImportError, ImportProblem

__all__ = ["ProblemList"]


class ProblemList:
    """Problems in the order found: the first ``limit`` kept, every one counted."""

    def __init__(self, limit: int = 100) -> None:
        self.limit, self.total = limit, 0
        self.items: list[ImportProblem] = []

    def add(self, line: int | None, column: str | None, message: str) -> None:
        self.append(ImportProblem(line, column, message))

    def append(self, problem: ImportProblem) -> None:
        self.total += 1
        if len(self.items) < self.limit:
            self.items.append(problem)

    def __bool__(self) -> bool:
        return self.total > 0

    def __len__(self) -> int:
        return self.total

    def raise_if_any(self) -> None:
        """Raise :class:`CsvImportError` with the kept problems and the count of all."""
        if self.total:
            raise CsvImportError(self.items, total=self.total)
