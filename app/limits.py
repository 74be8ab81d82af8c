"""The bounds on what one import may hold, checked here for every way in.

``MAX_ATTRIBUTES`` attributes (columns) per project and ``MAX_RECORD_CHARS`` characters in
the values of one record together (``config.py``). Every entry path asks this module: the
browser's upload and the command line's (the same staging, before the mapping page is
drawn), the check of every row of a CSV or pair file, the JSON API's project description,
the admins' trajectory, linkage-output and truth-file uploads, and the project schema itself
(:func:`app.projects.lifecycle.spec.parse_attributes`). Pure: the caller passes its
config (:meth:`Limits.of`). A message names the count and the limit, never a value; the
caller adds the file, line and column.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

__all__ = ["RECORD_LIMIT", "Limits", "past_a_limit"]

#: Ends every message about a record past ``MAX_RECORD_CHARS``.
RECORD_LIMIT = "(MAX_RECORD_CHARS)"


def past_a_limit(messages: Iterable[object]) -> bool:
    """Whether a record of these problems is past ``MAX_RECORD_CHARS``: its file must be
    corrected (the upload is then deleted at once rather than kept for another mapping)."""
    return any(str(message).endswith(RECORD_LIMIT) for message in messages)


@dataclass(frozen=True)
class Limits:
    """``attributes``: MAX_ATTRIBUTES; ``record_chars``: MAX_RECORD_CHARS."""

    attributes: int = 100
    record_chars: int = 10_000

    @classmethod
    def of(cls, config: Mapping[str, Any]) -> Limits:
        """The limits an app's config sets (the defaults above where it sets none)."""
        return cls(
            int(config.get("MAX_ATTRIBUTES", cls.attributes)),
            int(config.get("MAX_RECORD_CHARS", cls.record_chars)),
        )

    def attributes_problem(self, count: int, what: str = "attributes") -> str | None:
        """Why ``count`` attribute columns are too many, or None.

        ``what`` says what was counted ("columns besides the record id", ...).
        """
        if count <= self.attributes:
            return None
        return (
            f"{count:,} {what}; a project has at most {self.attributes:,} attributes "
            "(MAX_ATTRIBUTES)"
        )

    def record_problem(self, values: Iterable[object]) -> str | None:
        """Why a record of these values (strings; others are not counted) is too long, or None."""
        size = sum(len(v) for v in values if isinstance(v, str))
        if size <= self.record_chars:
            return None
        return (
            f"the values of this record together are longer than {self.record_chars:,} "
            f"characters {RECORD_LIMIT}"
        )

    def row_problem(self, fields: list[str]) -> str | None:
        """:meth:`record_problem` for a whole CSV row, with its field count too (a row with
        more fields than a project can have attributes, and a record id, is refused)."""
        if len(fields) > self.attributes + 1:
            most = self.attributes + 1
            return f"{len(fields):,} fields; a row has at most {most:,} (MAX_ATTRIBUTES and an id)"
        return self.record_problem(fields)
