"""Trajectories, their distances and the record-linkage risk of anonymizing them (spec §4).

- :mod:`.model`: the :class:`Trajectory` dataclass and the validated CSV reader.
- :mod:`.distances`: haversine, speeds, the reference's ``Martinez2021`` distance (exact),
  its calibration (λ, max_dist) and a unit-consistent ``MartinezCorrected``.
- :mod:`.shape`: synchronized haversine, DTW and discrete Fréchet distances.
- :mod:`.linkage`: the record-linkage risk RL, exact and windowed.
"""

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
