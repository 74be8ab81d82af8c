"""Trajectories flattened into contiguous arrays for the compiled kernels (:mod:`.kernels`).

A :class:`Flat` holds every point of a list of trajectories end to end (trajectory ``k`` owns
points ``offsets[k]:offsets[k+1]``) together with the per-point quantities the kernels reuse
for every pair: latitude radians and cosine, and the sine and cosine of half the latitude
and longitude, so that ``sin(Δ/2) = sin(b/2)·cos(a/2) − cos(b/2)·sin(a/2)`` costs no
trigonometric call inside the loop. Speeds are computed once per trajectory by the plain
functions of :mod:`app.core.trajectory.distances`, so they are identical to the oracle's.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np

from app.core.trajectory.distances import haversine_km, speed_kmh
from app.core.trajectory.model import Trajectory

__all__ = ["Flat", "speeds_kmh"]

_GRID_LIMIT = 20_000_000  # cells of the padded segment grid; beyond it, one call per trajectory


def speeds_kmh(trajectories: Sequence[Trajectory]) -> np.ndarray:
    """:func:`~app.core.trajectory.distances.speed_kmh` of every trajectory, identical, in bulk.

    The same element-wise operations on all points at once; each trajectory's ratios are then
    summed left to right (``cumsum`` along a zero-padded row), exactly as the per-trajectory
    function sums them.
    """
    lengths = np.array([len(x) for x in trajectories], dtype=np.int64)
    width = int(lengths.max(initial=1)) - 1
    if width < 1 or len(lengths) * width > _GRID_LIMIT:
        return np.array([speed_kmh(x) for x in trajectories], dtype=np.float64)
    lat = np.concatenate([x.lat for x in trajectories])
    lon = np.concatenate([x.lon for x in trajectories])
    t = np.concatenate([x.t for x in trajectories])
    s = haversine_km(lat[:-1], lon[:-1], lat[1:], lon[1:])  # boundary segments are unused
    dt = np.diff(t).astype(np.float64)
    ratios = np.divide(s, dt, out=np.zeros_like(s), where=dt != 0)
    starts = np.concatenate([[0], np.cumsum(lengths)[:-1]])
    col = np.arange(width)
    valid = col[None, :] < (lengths - 1)[:, None]
    grid = np.zeros((len(lengths), width))
    grid[valid] = ratios[(starts[:, None] + col[None, :])[valid]]
    moving = lengths >= 2
    sums = np.cumsum(grid, axis=1)[np.arange(len(lengths)), np.maximum(lengths - 2, 0)]
    out = np.zeros(len(lengths))
    out[moving] = sums[moving] / (lengths[moving] - 1) * 3600
    return out


COS_LAT, SIN_HLAT, COS_HLAT, SIN_HLON, COS_HLON, TIME = range(6)


@dataclass(frozen=True, eq=False)
class Flat:
    """Points of many trajectories in CSR form, plus each trajectory's id and speed (km/h).

    ``points[p]`` holds, for point p, the columns named by the module constants (the time
    as a float64, exact for whole seconds below 2^53): one point is one 48-byte row, so a
    kernel reading it touches one cache line, not six.
    """

    ids: np.ndarray
    offsets: np.ndarray
    points: np.ndarray
    speed: np.ndarray

    @classmethod
    def build(
        cls, trajectories: Sequence[Trajectory], speed: Callable[[Trajectory], float] = speed_kmh
    ) -> Flat:
        """Flatten ``trajectories`` (in order) and compute their speeds with ``speed``."""
        lengths = np.array([len(x) for x in trajectories], dtype=np.int64)
        offsets = np.zeros(len(lengths) + 1, dtype=np.int64)
        np.cumsum(lengths, out=offsets[1:])
        points = np.empty((int(offsets[-1]), 6))
        if len(trajectories):
            lat = np.radians(np.concatenate([x.lat for x in trajectories]))
            lon = np.radians(np.concatenate([x.lon for x in trajectories]))
            points[:, COS_LAT] = np.cos(lat)
            points[:, SIN_HLAT], points[:, COS_HLAT] = np.sin(lat * 0.5), np.cos(lat * 0.5)
            points[:, SIN_HLON], points[:, COS_HLON] = np.sin(lon * 0.5), np.cos(lon * 0.5)
            points[:, TIME] = np.concatenate([x.t for x in trajectories])
        return cls(
            ids=np.array([x.id for x in trajectories], dtype=np.int64),
            offsets=offsets,
            points=points,
            speed=(
                speeds_kmh(trajectories)
                if speed is speed_kmh
                else np.array([speed(x) for x in trajectories], dtype=np.float64)
            ),
        )

    def __len__(self) -> int:
        return len(self.ids)

    @property
    def arrays(self) -> tuple[np.ndarray, np.ndarray]:
        """``(offsets, points)``, the form the kernels take."""
        return self.offsets, self.points

    def take(self, rows: np.ndarray) -> Flat:
        """A Flat of the trajectories at ``rows`` (in that order)."""
        rows = np.asarray(rows, dtype=np.int64)
        starts, ends = self.offsets[rows], self.offsets[rows + 1]
        offsets = np.zeros(len(rows) + 1, dtype=np.int64)
        np.cumsum(ends - starts, out=offsets[1:])
        pieces = [np.arange(s, e) for s, e in zip(starts, ends, strict=True)]
        index = np.concatenate(pieces) if pieces else np.zeros(0, dtype=np.int64)
        return Flat(self.ids[rows], offsets, self.points[index], self.speed[rows])
