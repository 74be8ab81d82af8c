"""Say what failed without quoting a record: for job errors, log lines and database errors.

A record's values reach exceptions in many ways: a database error's detail (``Key
(external_id)=(…) already exists``), a ``ValueError`` about a date, a problem list that
quotes an id. Whatever is stored for admins (``Job.error``) or written to a log therefore
names the exception type and, where the exception says where (an import's line and column),
the place, never ``str(exc)``, except for the few types whose text comes from the program
or the system rather than from data (:data:`PLAIN`).
"""

from __future__ import annotations

import logging
import traceback

from sqlalchemy.exc import SQLAlchemyError

__all__ = ["PLAIN", "describe_failure", "log_failure"]

#: Exceptions whose message is the program's or the system's own words (``disk full``,
#: ``Object of type object is not JSON serializable``).
PLAIN = (RuntimeError, OSError, MemoryError, TypeError)
_SHOWN_PLACES = 10


def describe_failure(exc: BaseException) -> str:
    """``Type: where`` for an exception, with no value from the data in it."""
    name = type(exc).__name__
    problems = getattr(exc, "problems", None)
    if isinstance(problems, list) and problems:
        places = [_place(p) for p in problems]
        if all(places):
            more = len(places) - _SHOWN_PLACES
            shown = "; ".join(places[:_SHOWN_PLACES]) + (f"; and {more} more" if more > 0 else "")
            return f"{name}: problems at {shown}"
        return f"{name}: {len(problems)} problem(s) in the input"
    if isinstance(exc, PLAIN) and not isinstance(exc, SQLAlchemyError):
        return f"{name}: {exc}"
    orig = getattr(exc, "orig", None)
    if (
        isinstance(exc, SQLAlchemyError)
        and isinstance(orig, PLAIN)
        and not hasattr(orig, "sqlstate")
    ):
        return f"{name}: {type(orig).__name__}: {orig}"  # e.g. a value the driver cannot take
    return name


def _place(problem: object) -> str | None:
    line, column = getattr(problem, "line", None), getattr(problem, "column", None)
    if line is None and column is None:
        return None
    where = f"line {line}" if line is not None else "file"
    return where + (f", column {column!r}" if column is not None else "")


def log_failure(logger: logging.Logger, what: str, exc: BaseException) -> None:
    """Log ``what`` failed: the description and the stack, without the exception's text."""
    stack = "".join(traceback.format_tb(exc.__traceback__))
    logger.error("%s failed: %s\n%s", what, describe_failure(exc), stack.rstrip())
