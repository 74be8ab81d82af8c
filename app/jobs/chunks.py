"""Running a job's chunks on an executor: in the caller, on threads, or on a Dask cluster.

:class:`ChunkRunner` is the ``progress`` object a chunked job receives (``app.jobs``'s
``JobContext`` adds the job row); :func:`chunk_map` lets a job function also take a plain
``progress(done, total)`` callable (tests, scripts), running its chunks in the caller.
"""

from __future__ import annotations

from collections.abc import Callable
from concurrent.futures import FIRST_COMPLETED, Executor, Future, wait

POLL_SECONDS = 1.0  # how often a waiting job looks for a cancel and beats its heart

Progress = Callable[[int, int], None]


class InlineExecutor(Executor):
    """Run each call at once in the caller's thread (tests, and the CLI)."""

    def submit(self, fn, /, *args, **kwargs) -> Future:
        future: Future = Future()
        try:
            future.set_result(fn(*args, **kwargs))
        except BaseException as exc:  # noqa: BLE001 (the future carries it, as a pool's would)
            future.set_exception(exc)
        return future


class DaskExecutor(Executor):
    """``Client.get_executor()`` plus ``share``: big read-only inputs go to the cluster once."""

    def __init__(self, address: str | None) -> None:
        from distributed import Client

        self.client = Client(address) if address else Client(processes=False)
        self._executor = self.client.get_executor()

    def submit(self, fn, /, *args, **kwargs) -> Future:
        return self._executor.submit(fn, *args, **kwargs)

    def share(self, value):
        return self.client.scatter(value, broadcast=True, hash=False)

    def shutdown(self, wait: bool = True, *, cancel_futures: bool = False) -> None:
        self._executor.shutdown(wait=wait)
        self.client.close()


class ChunkRunner:
    """A ``progress(done, total)`` callback that can also run chunks on an executor.

    The CLI uses it as it is (``report`` prints progress); :class:`JobContext` writes the
    progress to the job's row and stops on a cancel.
    """

    def __init__(self, chunks: Executor, report: Progress | None = None) -> None:
        self.chunks, self.report = chunks, report

    def __call__(self, done: int, total: int) -> None:
        if self.report is not None:
            self.report(done, total)

    def map(
        self, fn: Callable, calls: list[tuple], *, shared=None, done=0, total=None, advance=True
    ) -> list:
        """``[fn(shared, *args) for args in calls]`` on the chunk executor, results in order.

        Progress goes to the row as ``(done + chunks finished, total)`` (just ``(done,
        total)`` with ``advance=False``: a preparatory pass that only beats the heart); a
        cancel cancels the chunks not yet started and raises :class:`JobCancelled`.
        """
        total = len(calls) + done if total is None else total
        if isinstance(self.chunks, InlineExecutor):
            return sequential_map(self, fn, calls, shared, done, total, advance)
        value = self.chunks.share(shared) if hasattr(self.chunks, "share") else shared
        futures = [self.chunks.submit(fn, value, *args) for args in calls]
        pending, finished = set(futures), 0
        try:
            while pending:
                ready, pending = wait(pending, timeout=POLL_SECONDS, return_when=FIRST_COMPLETED)
                finished += len(ready)
                for future in ready:
                    future.result()  # a failed chunk fails the job now
                self(done + (finished if advance else 0), total)
        except BaseException:
            for future in pending:
                future.cancel()
            raise
        return [f.result() for f in futures]


def sequential_map(progress: Progress, fn, calls, shared, done, total, advance) -> list:
    """:meth:`JobContext.map` in the caller, reporting to a plain ``progress(done, total)``."""
    results = []
    for k, args in enumerate(calls):
        progress(done + (k if advance else 0), total)
        results.append(fn(shared, *args))
    if advance:
        progress(done + len(calls), total)
    return results


def chunk_map(progress, fn, calls, *, shared=None, done=0, total=None, advance=True) -> list:
    """``progress.map(...)`` for a :class:`ChunkRunner`; in the caller for a plain callback."""
    if isinstance(progress, ChunkRunner):
        return progress.map(fn, calls, shared=shared, done=done, total=total, advance=advance)
    total = len(calls) + done if total is None else total
    return sequential_map(progress, fn, calls, shared, done, total, advance)
