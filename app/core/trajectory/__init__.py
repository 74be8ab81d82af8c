"""Trajectories, their distances and the record-linkage risk of anonymizing them (spec §4)."""

from app.core.trajectory.distances import (
    Calibration,
    Martinez2021,
    MartinezCorrected,
    calibrate,
    haversine_km,
    speed_kmh,
)
from app.core.trajectory.linkage import LinkageResult, record_linkage, windowed_record_linkage
from app.core.trajectory.model import Trajectory, TrajectoryFormatError, read_trajectories

__all__ = [
    "Calibration",
    "LinkageResult",
    "Martinez2021",
    "MartinezCorrected",
    "Trajectory",
    "TrajectoryFormatError",
    "calibrate",
    "haversine_km",
    "read_trajectories",
    "record_linkage",
    "speed_kmh",
    "windowed_record_linkage",
]
