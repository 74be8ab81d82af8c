"""The bounds on what one import may hold, decided here for every way in.

``config.py`` sets them: ``MAX_ATTRIBUTES`` attributes (columns) per project,
``MAX_VALUE_CHARS`` characters in one value, ``MAX_RECORD_CHARS`` in the values of one record
together, ``MAX_RECORD_ID_CHARS`` in an id (a record's, a pair's, a block's, a source's: the
columns holding them are ``VARCHAR(100)``). Every entry path asks this module: the browser's
upload and the command line's (the same staging, before the mapping page is drawn), the check
of every row of a record file and of a pair file, a linker's scored pairs (CSV, Parquet, JSON),
the JSON API's project description, the admins' trajectory, linkage-output and truth-file
uploads, and the project schema itself (:func:`app.projects.lifecycle.spec.parse_attributes`).

:meth:`Limits.record_problems` is the one check of a record (its ids and values); a path that
reads column by column (a batch of a CSV, an Arrow column) finds the rows that may be past a
bound itself and asks :meth:`Limits.past` for the same refusal. Pure: the caller passes its
config (:meth:`Limits.of`). A message names the bound and its config name, never a value; the
caller adds the file, row and column. A file refused by one of these bounds must be corrected:
its upload is deleted at once rather than kept for another mapping (:func:`past_a_limit`).
The file-size bound, ``MAX_CONTENT_LENGTH``, holds for every request before a byte of it is
read (a 413 naming it, :mod:`app.errors`); the command line reads files already on the server
and is bounded by rows and bytes only where its reader is (``MAX_SCORED_PAIRS``, a line's
length).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

__all__ = ["BOUND_NAMES", "RECORD_LIMIT", "Limits", "past_a_limit", "refusal"]

#: Ends every message about a record past ``MAX_RECORD_CHARS``.
RECORD_LIMIT = "(MAX_RECORD_CHARS)"
#: The config name each kind of bound is read from (and named by in every refusal).
BOUND_NAMES = {
    "value": "MAX_VALUE_CHARS", "id": "MAX_RECORD_ID_CHARS", "record": "MAX_RECORD_CHARS"
}  # fmt: skip
_ENDINGS = tuple(f"({name})" for name in BOUND_NAMES.values())


def refusal(kind: str, most: int) -> str:
    """The words of every refusal of a ``kind`` (``value``, ``id``, ``record``) longer than
    ``most`` characters, ending with the bound's config name."""
    name = f"({BOUND_NAMES[kind]})"
    if kind == "record":
        return f"the values of this record together are longer than {most:,} characters {name}"
    if kind == "id":
        return f"longer than {most:,} characters, the longest id kept whole {name}"
    return f"value longer than the limit of {most:,} characters {name}"


def past_a_limit(messages: Iterable[object]) -> bool:
    """Whether these problems hold a value, an id or a record past its bound: the file must be
    corrected (the upload is then deleted at once rather than kept for another mapping)."""
    return any(str(message).endswith(_ENDINGS) for message in messages)


@dataclass(frozen=True)
class Limits:
    """``attributes``: MAX_ATTRIBUTES; ``record_chars``: MAX_RECORD_CHARS; ``value_chars``:
    MAX_VALUE_CHARS; ``id_chars``: MAX_RECORD_ID_CHARS."""

    attributes: int = 100
    record_chars: int = 10_000
    value_chars: int = 1_000
    id_chars: int = 100

    @classmethod
    def of(cls, config: Mapping[str, Any]) -> Limits:
        """The limits an app's config sets (the defaults above where it sets none)."""
        return cls(
            int(config.get("MAX_ATTRIBUTES", cls.attributes)),
            int(config.get("MAX_RECORD_CHARS", cls.record_chars)),
            int(config.get("MAX_VALUE_CHARS", cls.value_chars)),
            int(config.get("MAX_RECORD_ID_CHARS", cls.id_chars)),
        )

    def bound(self, kind: str, room: int = 0) -> int:
        """The most characters of a ``kind`` (``value``, ``id``, ``record``); an id that takes
        ``room`` more characters when stored (``<PairID>-A``) has that many fewer."""
        most = {"value": self.value_chars, "id": self.id_chars, "record": self.record_chars}
        return most[kind] - room

    def past(self, kind: str, length: int, room: int = 0) -> str | None:
        """The refusal of a ``kind`` of ``length`` characters, or None within its bound."""
        most = self.bound(kind, room)
        return None if length <= most else refusal(kind, most)

    def id_problem(self, text: str) -> str | None:
        """The refusal of an id as long as ``text``, or None (its text is never quoted)."""
        return self.past("id", len(text))

    def record_problems(
        self,
        values: Mapping[str, object],
        ids: Mapping[str, object] | None = None,
        *,
        room: Mapping[str, int] | None = None,
    ) -> list[tuple[str | None, str]]:
        """Every bound one record passes, as ``(column, message)`` (column None: the record).

        ``values`` maps each stored column to its text (anything else is not counted);
        ``ids`` each id column to the id (``room``: characters an id takes more when stored).
        """
        found: list[tuple[str | None, str]] = []
        for column, text in (ids or {}).items():
            if isinstance(text, str):
                problem = self.past("id", len(text), (room or {}).get(column, 0))
                if problem is not None:
                    found.append((column, problem))
        total = 0
        for column, text in values.items():
            if isinstance(text, str):
                total += len(text)
                problem = self.past("value", len(text))
                if problem is not None:
                    found.append((column, problem))
        problem = self.past("record", total)
        if problem is not None:
            found.append((None, problem))
        return found

    def screen(self) -> int:
        """The row length (all its fields together) below which no bound can be passed but an
        id's: rows at most this long need no :meth:`record_problems`."""
        return min(self.value_chars, self.record_chars)

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
        return self.past("record", sum(len(v) for v in values if isinstance(v, str)))

    def row_problem(self, fields: list[str]) -> str | None:
        """The bounds of a whole CSV row of an upload that is no record file (trajectories,
        linkage outputs, truth files): its field count (a row with more fields than a project
        can have attributes, and a record id, is refused), each field
        (``MAX_VALUE_CHARS``) and all of them together (``MAX_RECORD_CHARS``); with the
        field's number when one field is too long."""
        if len(fields) > self.attributes + 1:
            most = self.attributes + 1
            return f"{len(fields):,} fields; a row has at most {most:,} (MAX_ATTRIBUTES and an id)"
        for number, text in enumerate(fields, start=1):
            problem = self.past("value", len(text))
            if problem is not None:
                return f"field {number}: {problem}"
        return self.record_problem(fields)
