"""A project's results as CSV: the four formats, and reading them from the database."""

from app.projects.exports.formats import neutralize
from app.projects.exports.service import KINDS, ExportRefused, export_csv, export_filename

__all__ = ["KINDS", "ExportRefused", "export_csv", "export_filename", "neutralize"]
