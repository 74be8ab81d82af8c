"""A cancel that reaches work which reports no progress for long (a DuckDB query).

A job sees its cancel at each progress call (:class:`~app.jobs.executor.JobContext`). Inside
:func:`interrupt_on_cancel`, a thread of its own also polls the job's row every
:data:`~app.jobs.chunks.POLL_SECONDS` (as a read: it never takes SQLite's write lock) and,
once the job is cancelled, calls ``interrupt()`` (a backend's: DuckDB's ``interrupt()``,
Spark's job-group cancel), again at every poll until the block ends; whatever the block
then raises, it raises :class:`~app.jobs.executor.JobCancelled`.
"""

from __future__ import annotations

import contextlib
import logging
import threading
from collections.abc import Callable, Iterator

from flask import current_app

from app.database import reads_only
from app.extensions import db
from app.jobs.chunks import POLL_SECONDS
from app.jobs.executor import JobCancelled, JobContext
from app.jobs.failures import log_failure

__all__ = ["interrupt_on_cancel"]

log = logging.getLogger(__name__)


def interrupt_on_cancel(progress, interrupt: Callable[[], None]):
    """Watch the job of ``progress`` for a cancel while inside; nothing outside a job."""
    if isinstance(progress, JobContext):
        return _watching(progress, interrupt)
    return contextlib.nullcontext()


@contextlib.contextmanager
def _watching(job: JobContext, interrupt: Callable[[], None]) -> Iterator[None]:
    app, stop, fired = current_app._get_current_object(), threading.Event(), threading.Event()

    def watch() -> None:
        with app.app_context(), reads_only():  # a session of its own
            try:
                while not stop.wait(POLL_SECONDS):
                    if fired.is_set() or job.cancelled():
                        fired.set()
                        interrupt()
            except Exception as exc:  # noqa: BLE001 (the job goes on; its checks remain)
                log_failure(log, f"job {job.job_id}'s cancel watch", exc)
            finally:
                db.session.remove()

    watcher = threading.Thread(target=watch, name=f"job{job.job_id}-cancel", daemon=True)
    watcher.start()
    try:
        yield
    except Exception:
        if fired.is_set():
            raise JobCancelled(f"job {job.job_id} was cancelled") from None
        raise
    finally:
        stop.set()
        watcher.join()
