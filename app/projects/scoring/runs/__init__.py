"""A scoring run: Splink's backends, the working tables handed to it, its folders and its job."""

from app.projects.scoring.runs.backends import DuckDBBackend, SparkBackend, backend_name
from app.projects.scoring.runs.engine import Outcome, run_scoring
from app.projects.scoring.runs.recovery import (
    WorkHeld,
    claim_work_dir,
    held,
    remove_project_work,
    sweep_work_dirs,
    work_root,
)

__all__ = [
    "DuckDBBackend",
    "Outcome",
    "SparkBackend",
    "WorkHeld",
    "backend_name",
    "claim_work_dir",
    "held",
    "remove_project_work",
    "run_scoring",
    "sweep_work_dirs",
    "work_root",
]
