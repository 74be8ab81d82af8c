"""Long jobs: the one executor seam, chunks on an executor, restart recovery, valueless errors.

The names are loaded on first use (PEP 562): a command that only runs chunks
(``app.jobs.chunks``, ``app.jobs.pools``) imports neither SQLAlchemy nor the models.
"""

from app.lazy import exports

_WHERE = {
    "chunks": (
        "ChunkRunner", "DaskExecutor", "InlineExecutor", "Progress", "chunk_map",
        "sequential_map",
    ),
    "pools": ("EXECUTORS", "dask_address", "executor_name", "get_executor"),
    "executor": ("ACTIVE", "JobCancelled", "JobContext", "cancel", "current_job_id", "submit"),
    "interrupts": ("interrupt_on_cancel",),
    "failures": ("PLAIN", "describe_failure", "log_failure"),
    "recovery": (
        "STALE_SECONDS", "fail_stopped", "housekeep", "on_stale", "on_sweep", "owner_id",
        "reconcile_at_start", "reconcile_stale_jobs", "stale_reason", "start_housekeeping",
    ),
}  # fmt: skip
__all__ = sorted(name for names in _WHERE.values() for name in names)
__getattr__, __dir__ = exports(__name__, _WHERE)
