"""The exports' CSV dialect: the app's formula-safe writer with MINDFIRL's line ends.

Every writer takes a text stream and plain values, so the views decide where the bytes go
(a download, a file) and the database layer decides what to read. A pair nobody answered is
written as undecided (empty decision), never dropped or fatal.

Every row goes through the app's one CSV writer (:mod:`app.csvsafe`): a value a spreadsheet
would read as a formula (``=HYPERLINK(...)``, ``+``, ``-``, ``@``, tab, CR first, or their
full-width forms) gets a leading apostrophe, per OWASP's "CSV Injection" guidance, and a
cell with a CR, an LF, a comma or a quote is quoted. Values are otherwise written unchanged.
The peer-tool exports (:mod:`app.projects.exports.peers`) keep ids unchanged, quoted.

``answers`` holds a reviewer's answer and its codes, ``labels`` the Splink labels file,
``legacy`` MINDFIRL's result file, ``clustering`` the clusters and the linked data.
"""

from __future__ import annotations

from typing import TextIO

from app.csvsafe import SafeWriter, writer

__all__ = ["export_writer"]


def export_writer(out: TextIO) -> SafeWriter:
    """A writer that neutralises each cell (:mod:`app.csvsafe`) onto ``out``."""
    # ``\n`` as in MINDFIRL's files; quoting stays minimal so the golden file matches.
    return writer(out, lineterminator="\n")
