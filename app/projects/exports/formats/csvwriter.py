"""The exports' CSV dialect: the app's formula-safe writer with MINDFIRL's line ends."""

from __future__ import annotations

from typing import TextIO

from app.csvsafe import SafeWriter, writer

__all__ = ["export_writer"]


def export_writer(out: TextIO) -> SafeWriter:
    """A writer that neutralises each cell (:mod:`app.csvsafe`) onto ``out``."""
    # ``\n`` as in MINDFIRL's files; quoting stays minimal so the golden file matches.
    return writer(out, lineterminator="\n")
