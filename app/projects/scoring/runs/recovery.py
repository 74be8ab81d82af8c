"""Scoring working folders: held while their run lives, removed by whoever finds them orphaned.

A run's folder holds its DuckDB file (and WAL) or Spark checkpoints: identifying values. It
is named for its job (``job<id>-project<p>-…``) or, outside a job (the command line), for its
process (``pid<pid>-project<p>-…``), and its run holds an exclusive ``flock`` on the folder's
:data:`HOLD` file from its creation to its removal. The kernel drops that lock when the
process ends in any way (SIGKILL included), so "held" means exactly "a live process still
works here", whatever the job's row says (a cancelled job's process may still be stopping).

:func:`sweep_work_dirs` removes every folder nobody holds: before each run, at start and on
the jobs' housekeeping timer (:func:`app.jobs.recovery.on_sweep`), and a stale scoring job's
folder when :mod:`app.jobs.recovery` fails the job. A close-out removes its project's folders
with :func:`remove_project_work`, refused while one is held.
"""

from __future__ import annotations

import fcntl
import logging
import os
import re
import shutil
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import BinaryIO

from flask import current_app
from sqlalchemy import select

from app.extensions import db
from app.jobs import ACTIVE, on_stale
from app.jobs.recovery import _alive, on_sweep
from app.models import Job

__all__ = [
    "HOLD",
    "WorkDir",
    "WorkHeld",
    "claim_work_dir",
    "held",
    "remove_project_work",
    "remove_work_of",
    "sweep_work_dirs",
    "work_dir_prefix",
    "work_root",
]

log = logging.getLogger(__name__)
_NAME = re.compile(r"(job|pid)(\d+)-(?:project(\d+)-)?")
HOLD = ".held"  # the file whose flock the folder's live run holds


class WorkHeld(RuntimeError):
    """A live process still holds a working folder; the message names its job or process."""


@dataclass
class WorkDir:
    """A run's working folder and the lock that says it is in use."""

    path: Path
    lock: BinaryIO

    def release(self) -> None:
        """Remove the folder, then let go of it (in that order: never unheld with content)."""
        try:
            shutil.rmtree(self.path, ignore_errors=True)
        finally:
            self.lock.close()


def work_dir_prefix(job_id: int | None, pid: int) -> str:
    return f"job{job_id}-" if job_id is not None else f"pid{pid}-"


def claim_work_dir(root: Path, prefix: str) -> WorkDir:
    """Make a fresh folder under ``root`` named ``prefix…`` and hold it until released.

    Made under a name no sweep reads and renamed once held, so a sweep never finds it
    unheld (an instant between its creation and its lock)."""
    new = Path(tempfile.mkdtemp(prefix=".new-", dir=root))
    lock = (new / HOLD).open("wb")
    fcntl.flock(lock, fcntl.LOCK_EX)
    path = new.rename(root / f"{prefix}{new.name.removeprefix('.new-')}")
    return WorkDir(path, lock)


def held(path: Path) -> bool | None:
    """Whether a live process holds the folder ``path``; None when it has no lock file (a
    folder made before locks, or being made this instant): then its name must tell."""
    try:
        with (path / HOLD).open("rb") as lock:
            try:
                fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                return True
            return False
    except FileNotFoundError:
        return None


def _in_use(path: Path, match: re.Match) -> bool:
    state = held(path)
    if state is not None:
        return state
    kind, number = match.group(1), int(match.group(2))
    if kind == "pid":
        return _alive(number)
    return db.session.scalar(select(Job.status).where(Job.id == number)) in ACTIVE


def _folders(root: Path):
    if not root.is_dir():
        return
    for path in root.iterdir():
        match = _NAME.match(path.name)
        if match is not None and path.is_dir():
            yield path, match


def sweep_work_dirs(root: Path | None = None) -> int:
    """Remove the working folders under ``root`` that no live run holds; how many."""
    removed = 0
    for path, match in _folders(root or work_root()):
        if not _in_use(path, match):
            shutil.rmtree(path, ignore_errors=True)
            removed += 1
            log.warning("removed the orphaned scoring working folder %s", path.name)
    return removed


def remove_project_work(project_id: int) -> int:
    """Remove every working folder of project ``project_id``; how many. Raises
    :class:`WorkHeld`, removing nothing, while a live process still holds one."""
    folders = [(p, m) for p, m in _folders(work_root()) if m.group(3) == str(project_id)]
    busy = [m for p, m in folders if _in_use(p, m)]
    if busy:
        names = ", ".join(f"{'process' if m[1] == 'pid' else 'job'} {m[2]}" for m in busy)
        raise WorkHeld(
            f"a scoring process ({names}) still works in its folder, which holds identifying "
            "values: a running job must end or be cancelled, and a cancelled one stops within "
            "seconds; close again once it has"
        )
    for path, _ in folders:
        shutil.rmtree(path, ignore_errors=True)
    return len(folders)


def work_root() -> Path:
    """Where runs make their working directories (``SCORING_WORK_DIR``, else instance/)."""
    root = current_app.config.get("SCORING_WORK_DIR") or os.path.join(
        current_app.instance_path, "scoring-work"
    )
    Path(root).mkdir(parents=True, exist_ok=True)
    return Path(root)


def remove_work_of(job_id: int) -> None:
    """Remove the folders of job ``job_id`` (a job that can no longer run) nobody holds."""
    for path in work_root().glob(f"job{job_id}-*"):
        if not held(path):
            shutil.rmtree(path, ignore_errors=True)


def _remove_stale(job: Job, reason: str) -> None:
    remove_work_of(job.id)


on_stale("scoring")(_remove_stale)
on_stale("scoring-train")(_remove_stale)
on_sweep(sweep_work_dirs)
