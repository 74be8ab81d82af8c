"""The conflicts queue: pairs double-coders disagree on, policy, referral and resolution."""

from app.projects.conflicts.queue import (
    ConflictError,
    conflict_queue,
    open_for_resolution,
    refer_conflict,
    resolve_conflict,
    resolver_assignment,
    reveal_for_resolution,
    set_conflict_policy,
)

__all__ = [
    "ConflictError",
    "conflict_queue",
    "open_for_resolution",
    "refer_conflict",
    "resolve_conflict",
    "resolver_assignment",
    "reveal_for_resolution",
    "set_conflict_policy",
]
