"""Working directories nobody will delete: a scoring process that died (killed, crashed)
leaves its DuckDB file or Spark checkpoints, which hold identifying values.

Each run's directory is named for its job (``job<id>-…``) or, outside a job (the
command line), for its process (``pid<pid>-…``). :func:`sweep_work_dirs` removes those whose
job is no longer queued or running, or whose process is gone; every run calls it before it
starts, and a stale scoring job's directory goes when :mod:`app.jobs.recovery` fails the job.
"""

from __future__ import annotations

import logging
import os
import re
import shutil
from pathlib import Path

from flask import current_app
from sqlalchemy import select

from app.extensions import db
from app.jobs import ACTIVE, on_stale
from app.jobs.recovery import _alive
from app.models import Job

__all__ = ["remove_work_of", "sweep_work_dirs", "work_dir_prefix", "work_root"]

log = logging.getLogger(__name__)
_NAME = re.compile(r"(job|pid)(\d+)-")


def work_dir_prefix(job_id: int | None, pid: int) -> str:
    return f"job{job_id}-" if job_id is not None else f"pid{pid}-"


def sweep_work_dirs(root: Path, *, keep: Path | None = None) -> int:
    """Remove the working directories under ``root`` that no live run owns; how many."""
    removed = 0
    for path in root.iterdir():
        match = _NAME.match(path.name)
        if not path.is_dir() or match is None or path == keep:
            continue
        kind, number = match.group(1), int(match.group(2))
        if kind == "pid":
            orphan = not _alive(number)
        else:
            status = db.session.scalar(select(Job.status).where(Job.id == number))
            orphan = status not in ACTIVE
        if orphan:
            shutil.rmtree(path, ignore_errors=True)
            removed += 1
            log.warning("removed the scoring working directory of %s %s", kind, number)
    return removed


def _remove_stale(job: Job, reason: str) -> None:
    remove_work_of(job.id)


def work_root() -> Path:
    """Where runs make their working directories (``SCORING_WORK_DIR``, else instance/)."""
    root = current_app.config.get("SCORING_WORK_DIR") or os.path.join(
        current_app.instance_path, "scoring-work"
    )
    Path(root).mkdir(parents=True, exist_ok=True)
    return Path(root)


def remove_work_of(job_id: int) -> None:
    """Remove the working directories of job ``job_id`` (a job that can no longer run)."""
    for path in work_root().glob(f"job{job_id}-*"):
        shutil.rmtree(path, ignore_errors=True)


on_stale("scoring")(_remove_stale)
on_stale("scoring-train")(_remove_stale)
