"""A project's results as CSV or JSON: the formats, and reading them from the database."""

from app.projects.exports.formats import neutralize
from app.projects.exports.service import (
    KINDS,
    STREAMED,
    VALUE_KINDS,
    ExportOptionError,
    ExportOptions,
    ExportRefused,
    export_chunks,
    export_csv,
    export_filename,
    export_mimetype,
    label_purpose,
    whole_csv,
)
from app.projects.exports.streams import components_kept

__all__ = [
    "KINDS",
    "STREAMED",
    "VALUE_KINDS",
    "ExportOptionError",
    "ExportOptions",
    "ExportRefused",
    "components_kept",
    "export_chunks",
    "export_csv",
    "export_filename",
    "export_mimetype",
    "label_purpose",
    "neutralize",
    "whole_csv",
]
