"""Dates in a layout the manager names, read strictly into the stored ``MMDDYYYY`` form.

A layout is a ``strftime``-style pattern made of ``%Y`` (four-digit year), ``%m`` (month),
``%d`` (day), each exactly once, and literal separators: ``%m/%d/%Y``, ``%d/%m/%Y``,
``%Y-%m-%d``, ``%Y%m%d`` (FEBRL), ``%d.%m.%Y``, ... Reading is strict: the whole value must
match (no time part, no trailing text), a month or day beside a separator may have one or two
digits, and a field with no separator beside it (``%Y%m%d``) must have exactly its width. The
date must exist in the calendar. Without a layout, :func:`app.core.disclosure.normalize`
accepts ``MM/DD/YYYY`` and ``YYYY-MM-DD``, as before.

Errors never quote the value: they say which layout was expected, or which part of the date
is impossible.
"""

from __future__ import annotations

import datetime as _dt
import re
from dataclasses import dataclass
from functools import lru_cache

from app.core.disclosure.attributes import MISSING_TOKENS, normalize

__all__ = [
    "COMMON_FORMATS",
    "DateFormat",
    "date_format",
    "format_label",
    "guess_format",
    "normalize_date",
]

#: The layouts the mapping form offers, with how a person reads them.
COMMON_FORMATS: dict[str, str] = {
    "%m/%d/%Y": "MM/DD/YYYY",
    "%d/%m/%Y": "DD/MM/YYYY",
    "%Y-%m-%d": "YYYY-MM-DD",
    "%Y%m%d": "YYYYMMDD",
    "%d.%m.%Y": "DD.MM.YYYY",
    "%Y/%m/%d": "YYYY/MM/DD",
    "%d-%m-%Y": "DD-MM-YYYY",
    "%m-%d-%Y": "MM-DD-YYYY",
    "%d%m%Y": "DDMMYYYY",
    "%m%d%Y": "MMDDYYYY",
}
_FIELDS = {"Y": ("year", 4, 4), "m": ("month", 1, 2), "d": ("day", 1, 2)}
_LABELS = {"Y": "YYYY", "m": "MM", "d": "DD"}
_MAX_FORMAT = 40


@dataclass(frozen=True)
class DateFormat:
    """A compiled layout: its pattern, a person's name for it and the matching regex."""

    pattern: str
    label: str
    regex: re.Pattern[str]
    order: tuple[str, ...]  # the fields in the order the regex captures them

    def parse(self, text: str) -> str:
        """``MMDDYYYY`` of ``text`` (stripped, not missing); :class:`ValueError` if it is not
        a date in this layout or not a calendar date."""
        match = self.regex.fullmatch(text)
        if match is None:
            raise ValueError(f"not a date in {self.label}")
        parts = dict(zip(self.order, map(int, match.groups()), strict=True))
        year, month, day = parts["year"], parts["month"], parts["day"]
        try:
            _dt.date(year, month, day)
        except ValueError as exc:
            raise ValueError(f"not a calendar date ({exc})") from None
        return f"{month:02d}{day:02d}{year:04d}"


@lru_cache(maxsize=64)
def date_format(pattern: str) -> DateFormat:
    """Compile ``pattern``; :class:`ValueError` naming what is wrong with it."""
    if not isinstance(pattern, str) or not pattern or len(pattern) > _MAX_FORMAT:
        raise ValueError(f"a date format is a pattern such as %m/%d/%Y (at most {_MAX_FORMAT})")
    tokens: list[str] = []  # "%Y", "%m", "%d" or one literal character
    i = 0
    while i < len(pattern):
        if pattern[i] == "%":
            code = pattern[i + 1 : i + 2]
            if code not in _FIELDS:
                raise ValueError("a date format may only use %Y, %m and %d (and separators)")
            tokens.append("%" + code)
            i += 2
        else:
            if pattern[i].isdigit():
                raise ValueError("a date format's separators cannot be digits")
            tokens.append(pattern[i])
            i += 1
    codes = [t[1] for t in tokens if t.startswith("%")]
    if sorted(codes) != ["Y", "d", "m"]:
        raise ValueError("a date format needs %Y, %m and %d, each once")
    regex, order, label = [], [], []
    for k, token in enumerate(tokens):
        if not token.startswith("%"):
            regex.append(re.escape(token))
            label.append(token)
            continue
        name, least, most = _FIELDS[token[1]]
        # A field beside another field (no separator) must have its full width.
        glued = any(0 <= j < len(tokens) and tokens[j].startswith("%") for j in (k - 1, k + 1))
        regex.append(rf"(\d{{{most}}})" if glued else rf"(\d{{{least},{most}}})")
        order.append(name)
        label.append(_LABELS[token[1]])
    return DateFormat(pattern, "".join(label), re.compile("".join(regex)), tuple(order))


def format_label(pattern: str | None) -> str:
    """How a person reads ``pattern`` (``YYYYMMDD``); the default layouts when None."""
    return "MM/DD/YYYY or YYYY-MM-DD" if not pattern else date_format(pattern).label


@lru_cache(maxsize=1 << 16)
def _parse(pattern: str, text: str) -> str:
    return date_format(pattern).parse(text)


def normalize_date(raw: object, pattern: str) -> str | None:
    """The stored form (``MMDDYYYY``) of ``raw`` read in layout ``pattern``; None if missing.

    Raises :class:`ValueError` (never quoting the value) for a value that is not a date in
    that layout or not a calendar date.
    """
    if raw is None:
        return None
    text = str(raw).strip()
    if text.lower() in MISSING_TOKENS:
        return None
    return _parse(pattern, text)


def _reads(pattern: str | None, values: list[str]) -> int:
    read = 0
    for value in values:
        try:
            (normalize_date(value, pattern) if pattern else normalize("date", value))
            read += 1
        except ValueError:
            pass
    return read


def guess_format(values) -> str:
    """The layout that reads the most of ``values`` (a column's first values); ``""`` (the
    default layouts) when they read as many. A day above 12 in front picks ``%d/%m/%Y``."""
    sample = [v.strip() for v in values if v and v.strip().lower() not in MISSING_TOKENS]
    if not sample:
        return ""
    best, most = "", _reads(None, sample)
    for pattern in COMMON_FORMATS:
        read = _reads(pattern, sample)
        if read > most:
            best, most = pattern, read
    return best
