"""Long jobs: the one executor seam, chunks on an executor, restart recovery, valueless errors.

The names are loaded on first use (PEP 562): a command that only runs chunks
(``app.jobs.chunks``, ``app.jobs.pools``) imports neither SQLAlchemy nor the models.
"""

from importlib import import_module

_WHERE = {
    "chunks": (
        "ChunkRunner", "DaskExecutor", "InlineExecutor", "Progress", "chunk_map",
        "sequential_map",
    ),
    "pools": ("EXECUTORS", "dask_address", "executor_name", "get_executor"),
    "executor": (
        "ACTIVE", "JobCancelled", "JobContext", "cancel", "current_job_id",
        "interrupt_on_cancel", "submit",
    ),
    "failures": ("PLAIN", "describe_failure", "log_failure"),
    "recovery": (
        "STALE_SECONDS", "fail_stopped", "housekeep", "on_stale", "on_sweep", "owner_id",
        "reconcile_at_start", "reconcile_stale_jobs", "stale_reason", "start_housekeeping",
    ),
}  # fmt: skip
_MODULE = {name: module for module, names in _WHERE.items() for name in names}

__all__ = sorted(_MODULE)


def __getattr__(name: str):
    if name not in _MODULE:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(import_module(f"{__name__}.{_MODULE[name]}"), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *__all__})
