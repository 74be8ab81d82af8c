"""A written project waiting for its manager: the one-pass check-and-write, and its job."""

from app.projects.importing.pending.jobs import (
    DEFAULT_THRESHOLD,
    needs_job,
    run_check,
    submit_check,
)
from app.projects.importing.pending.waiting import (
    check_and_write,
    check_plan,
    checked_of,
    discard_pending,
    estimate_rows,
    pending_project,
    publish,
    remember,
)

__all__ = [
    "DEFAULT_THRESHOLD",
    "check_and_write",
    "check_plan",
    "checked_of",
    "discard_pending",
    "estimate_rows",
    "needs_job",
    "pending_project",
    "publish",
    "remember",
    "run_check",
    "submit_check",
]
