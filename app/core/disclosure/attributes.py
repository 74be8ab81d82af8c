"""Attribute types, display levels and value normalisation.

The disclosure engine and the anonymity-set index must agree on what a value *is*
(which characters it has, at which positions), so both read it from here.

A normalised value is a ``str`` whose characters are exactly the characters that count
for ``p_ij`` (spec/README.md §1); ``None`` means missing.

- ``id``: fixed-length identifier; surrounding and internal white space removed.
- ``string``: free text such as a name; NFC, surrounding white space stripped, internal
  runs of white space folded to one space; case is kept.
- ``date``: ``MM/DD/YYYY`` or ISO ``YYYY-MM-DD`` in, ``MMDDYYYY`` (8 digits) out, so a
  separator is never a character. An impossible date raises :class:`ValueError`.
- ``category``: stripped; compared whole (a category has no partial level).
"""

from __future__ import annotations

import datetime as _dt
import enum
import re
import unicodedata
from collections.abc import Sequence
from functools import lru_cache

__all__ = [
    "AttributeType",
    "Level",
    "column_characters",
    "value_characters",
    "normalize",
    "format_date",
    "MISSING_TOKENS",
    "CLUSTER_COLUMNS",
    "FIRST_NAMES",
    "LAST_NAMES",
    "name_columns",
]


class AttributeType(enum.StrEnum):
    """How an identifying attribute is compared and disclosed (paper §3.2)."""

    ID = "id"
    STRING = "string"
    DATE = "date"
    CATEGORY = "category"


class Level(enum.StrEnum):
    """Display level of one cell; the order is the order of disclosure."""

    MASKED = "masked"
    PARTIAL = "partial"
    FULL = "full"

    @property
    def rank(self) -> int:
        return _LEVEL_RANK[self]


_LEVEL_RANK = {Level.MASKED: 0, Level.PARTIAL: 1, Level.FULL: 2}


def value_characters(value: str | None, kind: AttributeType) -> int:
    """Return the characters of a normalised value: what ``p_ij``'s denominator and the
    characters meter count (spec/README.md §1): its length, 1 for a category, 0 when missing.
    """
    if value is None:
        return 0
    return 1 if kind is AttributeType.CATEGORY else len(value)


def column_characters(values: Sequence[str | None], kind: AttributeType) -> list[int]:
    """Return :func:`value_characters` of each of ``values`` (one attribute's column)."""
    if kind is AttributeType.CATEGORY:
        return [0 if v is None else 1 for v in values]
    if None not in values:
        return list(map(len, values))
    return [0 if v is None else len(v) for v in values]


#: Column names (lower-case) that hold a ground-truth cluster id: the mapping page offers
#: them as the project's ground truth, and older projects without one fall back on them.
CLUSTER_COLUMNS = ("cluster_id", "cluster", "true_id", "entity_id", "truth")
#: Column names (lower-case) of a person's first and last name, in order of preference: the
#: name-frequency markers and the frequency files' ``F`` / ``L`` counts go to them.
FIRST_NAMES = ("first_name", "firstname", "first", "fname", "given_name")
LAST_NAMES = ("last_name", "lastname", "last", "lname", "surname", "family_name")


def name_columns(columns) -> tuple[str | None, str | None]:
    """The (first name, last name) columns among ``columns`` (as spelled there), if any."""
    names = {c.lower(): c for c in columns}
    first = next((names[n] for n in FIRST_NAMES if n in names), None)
    return first, next((names[n] for n in LAST_NAMES if n in names), None)


#: Raw values read as "missing" (case-insensitive, after stripping).
MISSING_TOKENS = frozenset({"", "na", "n/a", "null", "none", "nan", "?"})

_US_DATE = re.compile(r"^(\d{1,2})/(\d{1,2})/(\d{4})$")
_ISO_DATE = re.compile(r"^(\d{4})-(\d{1,2})-(\d{1,2})$")


def normalize(kind: AttributeType | str, raw: object) -> str | None:
    """Return the normalised value of ``raw`` for an attribute of type ``kind``.

    ``None`` and the :data:`MISSING_TOKENS` give ``None``. Raises :class:`ValueError`
    for a date that is not a real calendar date in an accepted layout.
    """
    if raw is None:
        return None
    text = str(raw)
    # Imports call this for every cell: ASCII is already NFC, so skip the normalisation.
    text = (text if text.isascii() else unicodedata.normalize("NFC", text)).strip()
    if text.lower() in MISSING_TOKENS:
        return None
    kind = kind if isinstance(kind, AttributeType) else AttributeType(kind)
    if kind is AttributeType.ID:
        return "".join(text.split())
    if kind is AttributeType.DATE:
        return _normalize_date(text)
    return " ".join(text.split())


@lru_cache(maxsize=1 << 16)  # a million people have some tens of thousands of birthdays
def _normalize_date(text: str) -> str:
    if m := _US_DATE.match(text):
        month, day, year = (int(g) for g in m.groups())
    elif m := _ISO_DATE.match(text):
        year, month, day = (int(g) for g in m.groups())
    else:
        raise ValueError("not a date in MM/DD/YYYY or YYYY-MM-DD")
    try:
        _dt.date(year, month, day)
    except ValueError as exc:
        raise ValueError(f"not a calendar date ({exc})") from None
    return f"{month:02d}{day:02d}{year:04d}"


def format_date(normalized: str) -> str:
    """Render a normalised ``MMDDYYYY`` date as ``MM/DD/YYYY``."""
    return f"{normalized[0:2]}/{normalized[2:4]}/{normalized[4:8]}"
