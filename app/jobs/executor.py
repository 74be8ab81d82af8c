"""The one executor seam for long jobs: a Job row holds state and progress, never the executor.

``submit(kind, fn, *args)`` creates a :class:`~app.models.Job` row (queued), commits it and
hands ``fn`` to a ``concurrent.futures.Executor`` chosen by ``JOBS_EXECUTOR``:

- ``"inline"`` (the default under ``TESTING``) runs the job before ``submit`` returns;
- ``"thread"`` runs it on a small thread pool in the web process;
- ``"process"`` (the default otherwise) runs it in a spawned process pool, which builds its
  own app from the database settings;
- ``"dask"`` runs the job's driver on a thread of the web process and its chunks on a Dask
  cluster (``DASK_SCHEDULER_ADDRESS``; a local cluster when unset) through
  ``Client.get_executor()``;
- ``"queue"`` leaves the row queued, with the function and its arguments, for a
  ``flask jobs worker`` on any machine (:mod:`app.jobs.queue`, :mod:`app.jobs.worker`).

``fn(*args, progress=ctx)`` returns a JSON-serialisable dict. ``ctx(done, total)`` writes the
progress to the row in a session of its own; ``ctx.map(chunk_fn, calls, shared=...)`` runs
pure chunk functions on the chunk executor (threads, or the Dask cluster), writes chunks
done/total and stops, cancelling what has not run, once the job is cancelled
(:func:`cancel`). The result or the error lands on the row, so any web worker can show it and
a crashed pool is recorded, not lost. Restart safety lives in :mod:`app.jobs.recovery`.
"""

from __future__ import annotations

import contextvars
import logging
from collections.abc import Callable
from concurrent.futures import Executor, Future
from concurrent.futures.process import BrokenProcessPool

from flask import Flask, current_app
from sqlalchemy import select, update

from app.extensions import db
from app.jobs import queue
from app.jobs.chunks import (  # noqa: F401  (re-exported: the seam's public names)
    ChunkRunner,
    DaskExecutor,
    InlineExecutor,
    Progress,
    chunk_map,
    sequential_map,
)
from app.jobs.failures import describe_failure, log_failure
from app.jobs.pools import (  # noqa: F401  (re-exported: the seam's public names)
    PROCESSES,
    _pools,
    dask_address,
    drop,
    executor_name,
    get_executor,
)
from app.jobs.recovery import fail_stopped, owner_id
from app.models import Job
from app.models.base import utcnow

log = logging.getLogger(__name__)

ACTIVE = ("queued", "running")
ENDED = ("done", "failed", "cancelled")
POOL_DIED = "its pool process died (killed, or out of memory) while it ran"
# The settings a pool process needs to reach the same database as the web process.
_CHILD_KEYS = (
    "SQLALCHEMY_DATABASE_URI",
    "VAULT_DATABASE_URI",
    "SQLALCHEMY_ENGINE_OPTIONS",
    "SECRET_KEY",
)
_child_apps: dict[tuple, Flask] = {}

_current_job: contextvars.ContextVar[int | None] = contextvars.ContextVar("job", default=None)


def current_job_id() -> int | None:
    """The id of the job running in this thread (``None`` outside a job)."""
    return _current_job.get()


class JobCancelled(Exception):
    """Raised inside a job whose row was marked cancelled; the row keeps its status."""


def submit(
    kind: str, fn: Callable, *args, created_by: int | None = None, about: dict | None = None
) -> int:
    """Create a queued Job row, commit it and run ``fn(*args, progress=...)``; return its id.

    ``about`` is the row's result until the job returns its own (what the job is of, e.g. its
    projects, readable while it is queued or running; never a value)."""
    app = current_app._get_current_object()
    name = executor_name(app)
    job = Job(kind=kind, status="queued", created_by=created_by, owner=owner_id(), result=about)
    job.heartbeat_at = utcnow()
    if name == "queue":  # the row waits for `flask jobs worker`, owned by no process
        job.target, job.payload, job.owner = queue.target_of(fn), queue.encode(args), None
        job.max_attempts = int(getattr(fn, "job_attempts", 1))
    db.session.add(job)
    db.session.flush()
    job_id = job.id
    db.session.commit()
    if name == "queue":
        return job_id
    try:
        if name == "process":
            _to_pool(app, job_id, fn, args)
            return job_id
        if name == "dask":
            chunks = get_executor("dask", dask_address(app))
            future = get_executor("dask-driver").submit(_run_in_app, app, job_id, fn, args, chunks)
        else:
            chunks = InlineExecutor() if name == "inline" else get_executor("chunks")
            future = get_executor(name).submit(_run_in_app, app, job_id, fn, args, chunks)
    except Exception as exc:  # noqa: BLE001 (no executor took it: the row says why)
        log_failure(log, f"starting job {job_id}", exc)
        error = f"not started: {describe_failure(exc)}"
        _set(job_id, status="failed", error=error, expect="queued")
        return job_id
    future.add_done_callback(lambda f: _record_crash(app, job_id, f))
    return job_id


def _to_pool(app: Flask, job_id: int, fn: Callable, args: tuple, *, requeued: bool = False) -> None:
    """Hand the job to the process pool, rebuilt first if it broke since its last job."""
    config = {k: app.config[k] for k in _CHILD_KEYS if k in app.config}
    processes = int(app.config.get("JOBS_PROCESSES", PROCESSES))
    pool = get_executor("process", processes=processes)
    try:
        future = pool.submit(_run_in_child, config, job_id, fn, args)
    except BrokenProcessPool:
        drop("process", pool)
        pool = get_executor("process", processes=processes)
        future = pool.submit(_run_in_child, config, job_id, fn, args)
    future.add_done_callback(lambda f: _after_pool(app, job_id, fn, args, pool, f, requeued))


def _after_pool(app, job_id, fn, args, pool, future: Future, requeued: bool) -> None:
    """A pool's job ended; when its pool broke, rebuild it and re-queue the job if it never
    started (once), else fail it with the reason (and its kind's clean-up)."""
    if not (future.cancelled() or isinstance(future.exception(), BrokenProcessPool)):
        _record_crash(app, job_id, future)
        return
    drop("process", pool)
    with app.app_context():
        try:
            job = db.session.get(Job, job_id)
            if job is not None and job.status == "queued" and not requeued:
                log.warning("job %s: its pool broke before it started; queued again", job_id)
                _to_pool(app, job_id, fn, args, requeued=True)
            elif job is not None and job.status in ACTIVE:
                fail_stopped(job, POOL_DIED)
                db.session.commit()
        except Exception as exc:  # noqa: BLE001 (a callback must not raise into the pool)
            db.session.rollback()
            log_failure(log, f"job {job_id} after its pool broke", exc)
            _set(job_id, status="failed", error=f"stopped: {POOL_DIED}", expect="queued")
        finally:
            db.session.remove()


def cancel(job_id: int) -> bool:
    """Mark a queued or running job cancelled (its chunks stop); False if it had finished."""
    done = db.session.execute(
        update(Job)
        .where(Job.id == job_id, Job.status.in_(ACTIVE))
        .values(status="cancelled", error="cancelled by an administrator", payload=None)
    )
    db.session.commit()
    return done.rowcount == 1


class JobContext(ChunkRunner):
    """What a job gets as ``progress``: writes to its row, raises :class:`JobCancelled`."""

    def __init__(self, job_id: int, chunks: Executor) -> None:
        super().__init__(chunks)
        self.job_id = job_id

    def __call__(self, done: int, total: int) -> None:
        self.check()
        _set(self.job_id, done=done, total=total)

    def cancelled(self) -> bool:
        status = db.session.scalar(select(Job.status).where(Job.id == self.job_id))
        db.session.commit()  # end the read, so the next one sees a fresh snapshot
        return status == "cancelled"

    def check(self) -> None:
        if self.cancelled():
            raise JobCancelled(f"job {self.job_id} was cancelled")


def _run_in_child(config: dict, job_id: int, fn: Callable, args: tuple) -> None:
    key = tuple(sorted((k, repr(v)) for k, v in config.items()))
    if key not in _child_apps:
        from app import create_app

        _child_apps[key] = create_app(
            {**config, "AUTO_UPGRADE": False, "JOBS_RECONCILE_ON_START": False}
        )
    _run_in_app(_child_apps[key], job_id, fn, args, get_executor("chunks"))


def _run_in_app(
    app: Flask, job_id: int, fn: Callable, args: tuple, chunks: Executor, *, claimed=False
) -> None:
    """Run the job in a fresh app context (never the request's session); a job ``claimed`` by
    a worker is running already, and its end is written only while it is still the worker's."""
    mine = owner_id() if claimed else None
    with app.app_context():
        _current_job.set(job_id)
        try:
            started = claimed or _set(job_id, status="running", owner=owner_id(), expect="queued")
            if not started:
                return  # cancelled (or reconciled) before it started
            result = fn(*args, progress=JobContext(job_id, chunks))
        except JobCancelled:
            db.session.rollback()
            log.info("job %s stopped: cancelled", job_id)
            return
        except Exception as exc:  # noqa: BLE001 (any failure is recorded on the row)
            db.session.rollback()
            log_failure(log, f"job {job_id}", exc)  # no record value in logs or job errors
            error = describe_failure(exc)
            _set(job_id, status="failed", error=error, expect="running", owner_is=mine)
            return
        finally:
            db.session.remove()
        _set(job_id, status="done", result=result, error=None, expect="running", owner_is=mine)
        db.session.remove()


def _set(job_id: int, *, done=None, total=None, expect=None, owner_is=None, **values) -> bool:
    """Write progress, status, result or error (and a heartbeat) and commit at once.

    With ``expect``, only a row in that status is written (a cancelled job stays cancelled),
    with ``owner_is`` only one that process owns; whether it was. Its end clears its arguments.
    """
    if done is not None:
        values["progress_done"] = done
    if total is not None:
        values["progress_total"] = total
    if values.get("status") in ENDED:
        values["payload"] = None
    query = update(Job).where(Job.id == job_id)
    if expect is not None:
        query = query.where(Job.status == expect)
    if owner_is is not None:
        query = query.where(Job.owner == owner_is)
    written = db.session.execute(query.values(heartbeat_at=utcnow(), **values)).rowcount
    db.session.commit()
    return written == 1


def _record_crash(app: Flask, job_id: int, future: Future) -> None:
    """Mark the job failed when the executor itself failed (e.g. a pool process died)."""
    exc = future.exception()
    if exc is None:
        return
    with app.app_context():
        error = describe_failure(exc)
        _set(job_id, status="failed", error=error, expect="running")
        _set(job_id, status="failed", error=error, expect="queued")
        db.session.remove()
