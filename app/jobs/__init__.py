"""Long jobs: the one executor seam, chunks on an executor, restart recovery, valueless errors."""

from app.jobs.chunks import (
    ChunkRunner,
    DaskExecutor,
    InlineExecutor,
    Progress,
    chunk_map,
    sequential_map,
)
from app.jobs.executor import (
    ACTIVE,
    EXECUTORS,
    JobCancelled,
    JobContext,
    cancel,
    current_job_id,
    dask_address,
    executor_name,
    get_executor,
    submit,
)
from app.jobs.failures import PLAIN, describe_failure, log_failure
from app.jobs.recovery import (
    STALE_SECONDS,
    on_stale,
    owner_id,
    reconcile_at_start,
    reconcile_stale_jobs,
    stale_reason,
)

__all__ = [
    "ACTIVE",
    "EXECUTORS",
    "PLAIN",
    "STALE_SECONDS",
    "ChunkRunner",
    "DaskExecutor",
    "InlineExecutor",
    "JobCancelled",
    "JobContext",
    "Progress",
    "cancel",
    "chunk_map",
    "current_job_id",
    "dask_address",
    "describe_failure",
    "executor_name",
    "get_executor",
    "log_failure",
    "on_stale",
    "owner_id",
    "reconcile_at_start",
    "reconcile_stale_jobs",
    "sequential_map",
    "stale_reason",
    "submit",
]
