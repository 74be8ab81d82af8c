"""Trajectory distances beside Martinez2021: synchronized, DTW, Fréchet, Hausdorff and EDR.

The first four use the haversine ground distance in metres and are symmetric with ``D(T, T) = 0``.
Discrete Fréchet is a pseudometric on point sequences (it satisfies the triangle inequality),
which Martinez2021 is not; DTW is not (it fails the triangle inequality); the synchronized
distance compares positions at the same instants and is infinite for trajectories that never
overlap in time. Hausdorff is a metric on point sets (order and time ignored). EDR counts edits
and is time-aware: see :func:`edr`. These plain versions are the oracles of
:mod:`app.core.trajectory.fast.kernels`.
"""

from __future__ import annotations

import numpy as np

from app.core.trajectory.distances import haversine_km
from app.core.trajectory.model import Trajectory

__all__ = [
    "EDR_EPS_M",
    "EDR_TAU_S",
    "discrete_frechet",
    "dtw",
    "edr",
    "ground_matrix_m",
    "hausdorff",
    "synchronized_haversine",
]

EDR_EPS_M = 500.0  # EDR's spatial matching threshold (m): about the noise anonymizers add
EDR_TAU_S = 900.0  # EDR's temporal matching threshold (s): 15 min covers typical time shifts


def ground_matrix_m(t1: Trajectory, t2: Trajectory) -> np.ndarray:
    """Haversine distances in metres between every point of ``t1`` and every point of ``t2``."""
    return haversine_km(t1.lat[:, None], t1.lon[:, None], t2.lat[None, :], t2.lon[None, :]) * 1000


def _position_at(traj: Trajectory, times: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    # np.interp needs strictly increasing x for a well-defined answer at repeated timestamps:
    # keep the last point of each run of equal timestamps
    keep = np.append(np.diff(traj.t) > 0, True)
    t = traj.t[keep].astype(np.float64)
    return np.interp(times, t, traj.lat[keep]), np.interp(times, t, traj.lon[keep])


def synchronized_haversine(t1: Trajectory, t2: Trajectory) -> float:
    """Root-mean-square distance (m) between the two positions at the same instants.

    Positions are linearly interpolated (in degrees, which is fine at city scale and wrong
    across the antimeridian) at every timestamp of either trajectory within their common time
    span ``[max(start), min(end)]``. ``inf`` when the spans do not overlap.
    """
    start, end = max(t1.t[0], t2.t[0]), min(t1.t[-1], t2.t[-1])
    if start > end:
        return float("inf")
    times = np.union1d(t1.t, t2.t)
    times = times[(times >= start) & (times <= end)].astype(np.float64)
    lat1, lon1 = _position_at(t1, times)
    lat2, lon2 = _position_at(t2, times)
    d = haversine_km(lat1, lon1, lat2, lon2) * 1000
    return float(np.sqrt(np.mean(d * d)))


def _anti_diagonal_dp(cost: np.ndarray, combine) -> float:
    """Fill ``A[i, j] = combine(cost[i, j], min(A[i-1, j], A[i, j-1], A[i-1, j-1]))``.

    Cells on one anti-diagonal depend only on the two before it, so each is one array step.
    """
    n1, n2 = cost.shape
    acc = np.full((n1 + 1, n2 + 1), np.inf)
    acc[0, 0] = 0.0 if combine is np.add else -np.inf
    for k in range(2, n1 + n2 + 1):
        i = np.arange(max(1, k - n2), min(n1, k - 1) + 1)
        j = k - i
        best = np.minimum(np.minimum(acc[i - 1, j], acc[i, j - 1]), acc[i - 1, j - 1])
        acc[i, j] = combine(cost[i - 1, j - 1], best)
    return float(acc[n1, n2])


def dtw(t1: Trajectory, t2: Trajectory) -> float:
    """Dynamic time warping (m): least total ground distance over monotone alignments."""
    return _anti_diagonal_dp(ground_matrix_m(t1, t2), np.add)


def discrete_frechet(t1: Trajectory, t2: Trajectory) -> float:
    """Discrete Fréchet distance (m), Eiter & Mannila (1994): least bottleneck alignment."""
    return _anti_diagonal_dp(ground_matrix_m(t1, t2), np.maximum)


def hausdorff(t1: Trajectory, t2: Trajectory) -> float:
    """Hausdorff distance (m): the farthest any point of one is from the other's nearest point."""
    ground = ground_matrix_m(t1, t2)
    return float(max(ground.min(axis=1).max(), ground.min(axis=0).max()))


def edr(
    t1: Trajectory, t2: Trajectory, eps_m: float = EDR_EPS_M, tau_s: float = EDR_TAU_S
) -> float:
    """Time-aware Edit Distance on Real sequences (Chen, Özsu & Oria, SIGMOD 2005), in [0, 1].

    Two points match when they are at most ``eps_m`` metres apart (haversine) *and* at most
    ``tau_s`` seconds apart; a match costs 0, a mismatch, an insertion or a deletion 1. The
    edit count is divided by the longer length. Robust to outliers (one glitch costs one edit,
    whatever its size), but coarse: many pairs tie, and RL then splits 1/|G| over the ties.
    """
    ground = ground_matrix_m(t1, t2)
    dt = np.abs(t1.t[:, None] - t2.t[None, :])
    cost = np.where((ground <= eps_m) & (dt <= tau_s), 0.0, 1.0)
    n1, n2 = cost.shape
    prev = np.arange(n2 + 1, dtype=np.float64)
    for i in range(1, n1 + 1):
        cur = np.empty(n2 + 1)
        cur[0] = i
        for j in range(1, n2 + 1):
            cur[j] = min(prev[j - 1] + cost[i - 1, j - 1], prev[j] + 1.0, cur[j - 1] + 1.0)
        prev = cur
    return float(prev[n2] / max(n1, n2))
