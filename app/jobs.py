"""The one executor seam for long jobs: a Job row holds state and progress, never the executor.

``submit(kind, fn, *args)`` creates a :class:`~app.models.Job` row (queued), commits it and
hands ``fn`` to a ``concurrent.futures.Executor`` chosen by ``JOBS_EXECUTOR``:

- ``"inline"`` (the default under ``TESTING``) runs the job before ``submit`` returns;
- ``"thread"`` runs it on a small thread pool in the web process;
- ``"process"`` (the default otherwise) runs it in a spawned process pool, which builds its
  own app from the database settings.

``fn(*args, progress=callback)`` returns a JSON-serialisable dict; ``callback(done, total)``
writes the progress to the row in a session of its own. The result or the error lands on the
row, so any web worker can show it and a crashed pool is recorded, not lost.
"""

from __future__ import annotations

import contextvars
import logging
import multiprocessing
import threading
from collections.abc import Callable
from concurrent.futures import Executor, Future, ProcessPoolExecutor, ThreadPoolExecutor

from flask import Flask, current_app
from sqlalchemy import update

from app.extensions import db
from app.failures import describe_failure, log_failure
from app.models import Job

log = logging.getLogger(__name__)

EXECUTORS = ("inline", "thread", "process")
# The settings a pool process needs to reach the same database as the web process.
_CHILD_KEYS = (
    "SQLALCHEMY_DATABASE_URI",
    "VAULT_DATABASE_URI",
    "SQLALCHEMY_ENGINE_OPTIONS",
    "SECRET_KEY",
)
_pools: dict[str, Executor] = {}
_pools_lock = threading.Lock()
_child_apps: dict[tuple, Flask] = {}

Progress = Callable[[int, int], None]
_current_job: contextvars.ContextVar[int | None] = contextvars.ContextVar("job", default=None)


def current_job_id() -> int | None:
    """The id of the job running in this thread (``None`` outside a job)."""
    return _current_job.get()


class InlineExecutor(Executor):
    """Run each call at once in the caller's thread (tests, and the CLI)."""

    def submit(self, fn, /, *args, **kwargs) -> Future:
        future: Future = Future()
        try:
            future.set_result(fn(*args, **kwargs))
        except BaseException as exc:  # noqa: BLE001 (the future carries it, as a pool's would)
            future.set_exception(exc)
        return future


def executor_name(app: Flask) -> str:
    """The configured executor, ``inline`` under TESTING unless set."""
    name = app.config.get("JOBS_EXECUTOR") or ("inline" if app.testing else "process")
    if name not in EXECUTORS:
        raise ValueError(f"JOBS_EXECUTOR must be one of {', '.join(EXECUTORS)}, not {name!r}")
    return name


def get_executor(name: str) -> Executor:
    """The shared executor of that name (created on first use)."""
    if name == "inline":
        return InlineExecutor()
    with _pools_lock:
        if name not in _pools:
            if name == "thread":
                _pools[name] = ThreadPoolExecutor(max_workers=2, thread_name_prefix="job")
            else:
                context = multiprocessing.get_context("spawn")  # no forked DB connections
                _pools[name] = ProcessPoolExecutor(max_workers=2, mp_context=context)
        return _pools[name]


def submit(kind: str, fn: Callable, *args, created_by: int | None = None) -> int:
    """Create a queued Job row, commit it and run ``fn(*args, progress=...)``; return its id."""
    app = current_app._get_current_object()
    name = executor_name(app)
    job = Job(kind=kind, status="queued", created_by=created_by)
    db.session.add(job)
    db.session.flush()
    job_id = job.id
    db.session.commit()
    if name == "process":
        config = {k: app.config[k] for k in _CHILD_KEYS if k in app.config}
        future = get_executor(name).submit(_run_in_child, config, job_id, fn, args)
    else:
        future = get_executor(name).submit(_run_in_app, app, job_id, fn, args)
    future.add_done_callback(lambda f: _record_crash(app, job_id, f))
    return job_id


def _run_in_child(config: dict, job_id: int, fn: Callable, args: tuple) -> None:
    key = tuple(sorted((k, repr(v)) for k, v in config.items()))
    if key not in _child_apps:
        from app import create_app

        _child_apps[key] = create_app({**config, "AUTO_UPGRADE": False})
    _run_in_app(_child_apps[key], job_id, fn, args)


def _run_in_app(app: Flask, job_id: int, fn: Callable, args: tuple) -> None:
    # A fresh app context means a fresh session: the job never shares the request's.
    with app.app_context():
        _current_job.set(job_id)
        try:
            _set(job_id, status="running")
            result = fn(*args, progress=lambda done, total: _set(job_id, done=done, total=total))
        except Exception as exc:  # noqa: BLE001 (any failure is recorded on the row)
            db.session.rollback()
            log_failure(log, f"job {job_id}", exc)  # no record value in logs or job errors
            _set(job_id, status="failed", error=describe_failure(exc))
            return
        _set(job_id, status="done", result=result)
        db.session.remove()


def _set(job_id: int, *, done=None, total=None, **values) -> None:
    """Write progress, status, result or error to the row and commit at once."""
    if done is not None:
        values["progress_done"] = done
    if total is not None:
        values["progress_total"] = total
    db.session.execute(update(Job).where(Job.id == job_id).values(**values))
    db.session.commit()


def _record_crash(app: Flask, job_id: int, future: Future) -> None:
    """Mark the job failed when the executor itself failed (e.g. a pool process died)."""
    exc = future.exception()
    if exc is None:
        return
    with app.app_context():
        _set(job_id, status="failed", error=describe_failure(exc))
        db.session.remove()
