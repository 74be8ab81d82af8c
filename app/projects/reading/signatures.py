"""Name the kind of a file that is not text from its first bytes (PNG, Excel, PDF, ...).

A manager who uploads a spreadsheet or a picture by mistake should read what they uploaded
and what to do ("an Excel workbook (.xlsx): save it as CSV UTF-8"), not a byte offset of
invalid UTF-8.
"""

from __future__ import annotations

__all__ = ["not_text_message"]

#: Leading bytes of common non-text files → (what it is, what to do).
_SIGNATURES: tuple[tuple[bytes, str, str], ...] = (
    (b"\x89PNG\r\n\x1a\n", "a PNG image", "upload the data as a CSV file"),
    (b"\xff\xd8\xff", "a JPEG image", "upload the data as a CSV file"),
    (b"GIF87a", "a GIF image", "upload the data as a CSV file"),
    (b"GIF89a", "a GIF image", "upload the data as a CSV file"),
    (b"%PDF-", "a PDF document", "upload the data as a CSV file"),
    (
        b"PK\x03\x04",
        "a ZIP archive (an Excel .xlsx or OpenDocument .ods workbook is one)",
        "open it and save the sheet as CSV UTF-8",
    ),
    (
        b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1",
        "an old Excel (.xls) or Word document",
        "open it and save the sheet as CSV UTF-8",
    ),
    (b"\x1f\x8b", "a gzip-compressed file", "decompress it and upload the CSV inside"),
    (b"PAR1", "a Parquet file", "export the table as CSV UTF-8"),
    (b"SQLite format 3\x00", "an SQLite database", "export the table as CSV UTF-8"),
)


def not_text_message(head: bytes) -> str | None:
    """What the file starting with ``head`` is and what to do, or None for anything else."""
    for magic, what, todo in _SIGNATURES:
        if head.startswith(magic):
            return f"this is {what}, not a CSV file: {todo}"
    return None
