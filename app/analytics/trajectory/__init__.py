"""Trajectory record-linkage risk as a job: options, upload checks, chunked runs, charts."""

from app.analytics.trajectory.charts import job_charts
from app.analytics.trajectory.risk import (
    DISTANCES,
    OptionsError,
    RiskOptions,
    check_upload,
    parse_options,
    read_uploads,
    trajectory_risk,
)

__all__ = [
    "DISTANCES",
    "OptionsError",
    "RiskOptions",
    "check_upload",
    "job_charts",
    "parse_options",
    "read_uploads",
    "trajectory_risk",
]
