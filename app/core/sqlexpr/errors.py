"""The one error of the grammar: an expression refused, saying where and why, never a value."""

from __future__ import annotations

__all__ = ["SqlError"]


class SqlError(ValueError):
    """The expression is not in the grammar, or names something not allowed."""
