"""The compiled path of trajectory record linkage, in chunks any executor can run."""

from app.core.trajectory.fast.calibration import (
    calibration_chunk,
    calibration_part,
    fast_calibrate,
    finish_calibration,
    plan_calibration,
)
from app.core.trajectory.fast.flat import Flat, speeds_kmh
from app.core.trajectory.fast.search import (
    COMPILED,
    SearchPlan,
    compiled_distance,
    fast_linkage,
    plan_search,
    run,
    search_chunk,
    window_bounds,
)

__all__ = [
    "COMPILED",
    "Flat",
    "SearchPlan",
    "calibration_chunk",
    "calibration_part",
    "compiled_distance",
    "fast_calibrate",
    "fast_linkage",
    "finish_calibration",
    "plan_calibration",
    "plan_search",
    "run",
    "search_chunk",
    "speeds_kmh",
    "window_bounds",
]
