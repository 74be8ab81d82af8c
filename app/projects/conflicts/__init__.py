"""The conflicts queue: disagreements, policy, referral, resolution, paging and bulk actions."""

from app.projects.conflicts.bulk import MAX_BULK, BulkResult, refer_conflicts, resolve_conflicts
from app.projects.conflicts.listing import (
    PER_PAGE,
    STATES,
    ConflictPage,
    ListingError,
    conflict_page,
)
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
    "MAX_BULK",
    "PER_PAGE",
    "STATES",
    "BulkResult",
    "ConflictError",
    "ConflictPage",
    "ListingError",
    "conflict_page",
    "conflict_queue",
    "open_for_resolution",
    "refer_conflict",
    "refer_conflicts",
    "resolve_conflict",
    "resolve_conflicts",
    "resolver_assignment",
    "reveal_for_resolution",
    "set_conflict_policy",
]
