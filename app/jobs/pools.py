"""The executors jobs and their chunks run on, made on first use and rebuilt once broken.

``JOBS_EXECUTOR`` names where a job runs (:data:`EXECUTORS`, see :mod:`app.jobs.executor`);
this module keeps the shared pools by name and knows nothing of the database, so the command
line can run a job's chunks without building the web application.

A process pool whose process died (killed, out of memory) is *broken* for good: every later
``submit`` raises ``BrokenProcessPool``. :func:`drop` forgets such a pool, so the next
:func:`get_executor` makes a fresh one.
"""

from __future__ import annotations

import multiprocessing
import os
import threading
from concurrent.futures import Executor, ProcessPoolExecutor, ThreadPoolExecutor

from app.jobs.chunks import DaskExecutor, InlineExecutor

EXECUTORS = ("inline", "thread", "process", "dask", "queue")
PROCESSES = 2  # JOBS_PROCESSES: processes of the web process's pool

_pools: dict[str, Executor] = {}
_pools_lock = threading.Lock()


def executor_name(app) -> str:
    """The configured executor, ``inline`` under TESTING unless set."""
    name = (
        app.config.get("JOBS_EXECUTOR")
        or os.environ.get("JOBS_EXECUTOR")
        or ("inline" if app.testing else "process")
    )
    if name not in EXECUTORS:
        raise ValueError(f"JOBS_EXECUTOR must be one of {', '.join(EXECUTORS)}, not {name!r}")
    return name


def dask_address(app) -> str | None:
    return app.config.get("DASK_SCHEDULER_ADDRESS") or os.environ.get("DASK_SCHEDULER_ADDRESS")


def _key(name: str, address: str | None) -> str:
    return f"dask@{address}" if name == "dask" else name


def get_executor(name: str, address: str | None = None, *, processes: int = PROCESSES) -> Executor:
    """The shared executor of that name (created on first use).

    ``"chunks"`` is the thread pool that runs a job's chunks outside Dask (the kernels release
    the GIL); ``"dask-driver"`` runs the drivers of Dask jobs in the web process.
    """
    if name == "inline":
        return InlineExecutor()
    key = _key(name, address)
    with _pools_lock:
        if key not in _pools:
            if name == "thread":
                _pools[key] = ThreadPoolExecutor(max_workers=2, thread_name_prefix="job")
            elif name in ("chunks", "dask-driver"):
                workers = (os.cpu_count() or 2) if name == "chunks" else 2
                _pools[key] = ThreadPoolExecutor(max_workers=workers, thread_name_prefix=name)
            elif name == "dask":
                _pools[key] = DaskExecutor(address)
            else:
                context = multiprocessing.get_context("spawn")  # no forked DB connections
                _pools[key] = ProcessPoolExecutor(max_workers=processes, mp_context=context)
        return _pools[key]


def drop(name: str, pool: Executor, address: str | None = None) -> bool:
    """Forget ``pool`` if it is still the shared one of that name (it broke); True if it was.

    A broken pool is shut down without waiting: its processes are dead or being ended.
    """
    key = _key(name, address)
    with _pools_lock:
        if _pools.get(key) is not pool:
            return False
        del _pools[key]
    pool.shutdown(wait=False, cancel_futures=True)
    return True
