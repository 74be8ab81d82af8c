"""Refuse a regular expression that could take exponential time on a backtracking engine."""

from __future__ import annotations

import re

from app.core.sqlexpr.errors import SqlError

__all__ = ["MAX_REGEX", "check_regex"]

MAX_REGEX = 200
_QUANTIFIED_GROUP = re.compile(r"\)(?:[*+]|\{\d*,)")


def check_regex(pattern: str) -> None:
    """Refuse a regular expression that a backtracking engine could take exponential time on.

    DuckDB uses RE2 (linear time); Spark uses Java's backtracking engine, so a pattern is
    kept to what cannot blow up there: bounded length, no back-reference, and no group
    repeated without bound (``(…)*``, ``(…)+``, ``(…){n,}``) — where nested repetition and
    ambiguous alternation, the causes of catastrophic backtracking, live.
    """
    if len(pattern) > MAX_REGEX:
        raise SqlError(f"a regular expression has at most {MAX_REGEX} characters")
    if re.search(r"\\[1-9]|\\k<", pattern):
        raise SqlError("a regular expression may not use back-references")
    if _QUANTIFIED_GROUP.search(pattern):
        raise SqlError("a regular expression may not repeat a group without bound")
    try:
        re.compile(pattern)
    except re.error:
        raise SqlError("not a valid regular expression") from None
