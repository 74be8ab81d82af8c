"""Why an assignment cannot be made or changed."""

from __future__ import annotations

__all__ = ["AssignmentError"]


class AssignmentError(ValueError):
    """A user-facing reason an assignment cannot be made."""
