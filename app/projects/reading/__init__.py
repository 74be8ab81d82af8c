"""Reading managers' CSV files into checked rows and records; no database, no Flask."""

from app.projects.reading.csvio import CsvImportError

__all__ = ["CsvImportError"]
