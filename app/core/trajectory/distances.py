"""Spatio-temporal trajectory distances (spec/README.md §4).

:class:`Martinez2021` reproduces the reference implementation of MobiDataLab's mdl-anonymizer
exactly, index schedule and unit mix included, so that its numbers compare with published
ones; :class:`MartinezCorrected` is the same construction with consistent units and a speed
robust to GPS glitches. Both compare one trajectory with many at once: candidates of equal
length share an index schedule, so a group becomes a handful of array operations.
:mod:`app.core.trajectory.shape` holds distances that ignore the reference's conventions.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from functools import lru_cache

import numpy as np

from app.core.trajectory.model import Trajectory

__all__ = [
    "EARTH_RADIUS_KM",
    "Calibration",
    "Martinez2021",
    "MartinezCorrected",
    "Pack",
    "calibrate",
    "cochran_sample_size",
    "haversine_km",
    "index_schedule",
    "reference_point",
    "robust_speed_kmh",
    "speed_kmh",
]

EARTH_RADIUS_KM = 6371.0088  # mean Earth radius (IUGG), as the `haversine` package uses
_CHUNK = 1 << 21  # elements per (candidates x steps) block, to bound memory


def haversine_km(lat1, lon1, lat2, lon2) -> np.ndarray:
    """Great-circle distance in km between points given in degrees (broadcasting).

    ``R · 2·asin(sqrt(sin²(Δφ/2) + cos φ1 · cos φ2 · sin²(Δλ/2)))``, with R =
    :data:`EARTH_RADIUS_KM` and the operations in the order of the ``haversine`` package the
    reference calls; the result is exactly symmetric in its two points.
    """
    p1, l1, p2, l2 = (np.radians(np.asarray(x, dtype=np.float64)) for x in (lat1, lon1, lat2, lon2))
    return _haversine_rad(p1, l1, np.cos(p1), p2, l2, np.cos(p2))


def _haversine_rad(p1, l1, cos1, p2, l2, cos2) -> np.ndarray:
    # radians and cosines precomputed: the same values, in the same order, as haversine_km
    d = np.sin((p2 - p1) * 0.5) ** 2 + cos1 * cos2 * np.sin((l2 - l1) * 0.5) ** 2
    return EARTH_RADIUS_KM * (2.0 * np.arcsin(np.sqrt(np.minimum(d, 1.0))))


def _segment_speeds(traj: Trajectory) -> tuple[np.ndarray, np.ndarray]:
    s = haversine_km(traj.lat[:-1], traj.lon[:-1], traj.lat[1:], traj.lon[1:])
    return s, np.diff(traj.t).astype(np.float64)


def speed_kmh(traj: Trajectory) -> float:
    """Mean of the per-segment speeds in km/h, as the reference computes it (spec §4 "Speed").

    ``3600/(n−1) · Σ s_km(p_i, p_i+1)/(t_i+1 − t_i)``; a segment with Δt = 0 contributes 0
    but is still counted; 0 for a single point. Summed in order, like the reference.
    """
    if len(traj) < 2:
        return 0.0
    s, dt = _segment_speeds(traj)
    ratios = np.divide(s, dt, out=np.zeros_like(s), where=dt != 0)
    return float(np.cumsum(ratios)[-1] / (len(traj) - 1) * 3600)


def robust_speed_kmh(traj: Trajectory) -> float:
    """Median per-segment speed in km/h over segments with Δt > 0 (0 when there are none).

    One GPS glitch (a 31,732 km/h segment in real taxi data) moves the mean of
    :func:`speed_kmh` and, through it, the reference's λ by 1.7×; it barely moves a median.
    """
    s, dt = _segment_speeds(traj)
    moving = dt > 0
    return float(np.median(s[moving] / dt[moving]) * 3600) if moving.any() else 0.0


@lru_cache(maxsize=4096)
def index_schedule(n1: int, n2: int) -> tuple[np.ndarray, np.ndarray]:
    """Return the point indices ``(i_k, j_k)``, k < h, that the Martinez2021 distance pairs.

    ``h = round((n1 + n2)/2)``, ``g = n/h``; the indices come from the *sequential* float
    accumulation ``a += g; i = round(a)`` with half-to-even rounding, clipped to ``n − 1``
    (spec §4). The closed form ``round(k·g)`` differs in about 0.3% of steps, so it is not used.
    """
    h = round((n1 + n2) / 2)
    g1, g2 = n1 / h, n2 / h
    i = np.empty(h, dtype=np.intp)
    j = np.empty(h, dtype=np.intp)
    a1 = a2 = 0.0
    ii = jj = 0
    for k in range(h):
        i[k], j[k] = min(ii, n1 - 1), min(jj, n2 - 1)
        a1 += g1
        a2 += g2
        ii, jj = round(a1), round(a2)
    i.setflags(write=False)
    j.setflags(write=False)
    return i, j


@dataclass(eq=False)
class Pack:
    """Trajectories stacked into padded arrays for one-to-many distance computations."""

    trajectories: Sequence[Trajectory]
    lengths: np.ndarray = field(init=False)
    t: np.ndarray = field(init=False)
    lon: np.ndarray = field(init=False)
    lat: np.ndarray = field(init=False)
    rad: tuple[np.ndarray, np.ndarray, np.ndarray] = field(init=False, repr=False)
    _speeds: dict[Callable, np.ndarray] = field(init=False, default_factory=dict)

    def __post_init__(self) -> None:
        self.lengths = np.array([len(x) for x in self.trajectories], dtype=np.intp)
        width = int(self.lengths.max(initial=1))
        self.t = np.zeros((len(self.lengths), width), dtype=np.int64)
        self.lon = np.zeros((len(self.lengths), width))
        self.lat = np.zeros((len(self.lengths), width))
        for row, traj in enumerate(self.trajectories):
            n = len(traj)
            self.t[row, :n], self.lon[row, :n], self.lat[row, :n] = traj.t, traj.lon, traj.lat
        lat_r = np.radians(self.lat)
        self.rad = (lat_r, np.radians(self.lon), np.cos(lat_r))

    def __len__(self) -> int:
        return len(self.lengths)

    def speeds(self, speed: Callable[[Trajectory], float]) -> np.ndarray:
        """Each trajectory's speed under ``speed``, computed once per function."""
        if speed not in self._speeds:
            self._speeds[speed] = np.array([speed(x) for x in self.trajectories])
        return self._speeds[speed]


def _groups(pack: Pack, idx: np.ndarray, n2: int):
    """Yield ``(n1, positions in idx, rows of pack)``, one length n1 per group, in chunks."""
    lengths = pack.lengths[idx]
    for n1 in np.unique(lengths):
        where = np.flatnonzero(lengths == n1)
        chunk = max(1, _CHUNK // max(1, round((int(n1) + n2) / 2)))
        for start in range(0, len(where), chunk):
            sel = where[start : start + chunk]
            yield int(n1), sel, idx[sel]


def _aligned(pack: Pack, rows: np.ndarray, n1: int, query: Trajectory):
    """Spatial km and |Δt| seconds at the scheduled steps: arrays (len(rows), h)."""
    i, j = index_schedule(n1, len(query))
    r = rows[:, None]
    lat_r, lon_r, cos_r = pack.rad
    q_lat = np.radians(query.lat[j])
    s = _haversine_rad(
        lat_r[r, i], lon_r[r, i], cos_r[r, i], q_lat, np.radians(query.lon[j]), np.cos(q_lat)
    )
    return s, np.abs(pack.t[r, i] - query.t[j]), len(i)


def _rms_rows(x: np.ndarray, h: int) -> np.ndarray:
    # cumsum accumulates left to right like the reference's loop; sum() would pair up terms
    return np.sqrt(np.cumsum(x * x, axis=1)[:, -1] / h)


@dataclass(frozen=True)
class Martinez2021:
    """Martinez et al. (2021) distance as the mdl-anonymizer reference computes it (spec §4).

    ``D = sqrt(1/h · Σ_k (1000·s_km(T1[i_k], T2[j_k]) + λ·|Δt_k|·v)²)`` with
    ``v = (speed(T1) + speed(T2))/2/3.6`` m/s and the schedule of :func:`index_schedule`;
    divided by ``max_dist`` when ``normalized``. Symmetric, ``D(T, T) = 0``, not a metric.
    """

    lam: float
    max_dist: float | None = None
    normalized: bool = False
    speed: Callable[[Trajectory], float] = field(default=speed_kmh, repr=False)

    def __post_init__(self) -> None:
        if self.normalized and not self.max_dist:
            raise ValueError("a normalized distance needs a positive max_dist")

    def __call__(self, t1: Trajectory, t2: Trajectory) -> float:
        """Distance between two trajectories (metres, or a fraction of ``max_dist``)."""
        return float(self.one_to_many(t2, Pack([t1]))[0])

    def one_to_many(
        self, query: Trajectory, pack: Pack, idx: np.ndarray | None = None
    ) -> np.ndarray:
        """Distances ``D(pack[k], query)`` for the rows ``idx`` of ``pack`` (all by default)."""
        idx = np.arange(len(pack)) if idx is None else np.asarray(idx, dtype=np.intp)
        out = np.empty(len(idx))
        speeds, v_query = pack.speeds(self.speed), self.speed(query)
        n2 = len(query)
        for n1, sel, rows in _groups(pack, idx, n2):
            s, dt, h = _aligned(pack, rows, n1, query)
            v = (speeds[rows] + v_query) / 2 / 3.6
            out[sel] = _rms_rows(s * 1000 + self.lam * dt * v[:, None], h)
        return out / self.max_dist if self.normalized else out


@dataclass(frozen=True)
class MartinezCorrected(Martinez2021):
    """Martinez2021 with :func:`robust_speed_kmh`; pair it with ``calibrate(..., corrected=True)``.

    The distance is unchanged in form (metres, speeds in m/s); what the reference gets wrong is
    the calibration, whose temporal term uses km/h, and the mean speed, which one glitch ruins.
    """

    speed: Callable[[Trajectory], float] = field(default=robust_speed_kmh, repr=False)


@dataclass(frozen=True)
class Calibration:
    """λ and max_dist computed over (a sample of) the originals."""

    lam: float
    max_dist: float
    sample_size: int
    mean_spatial_m: float
    mean_temporal: float


def cochran_sample_size(n: int, z: float = 2.576, p: float = 0.5, e: float = 0.03) -> int:
    """Cochran's sample size with finite-population correction, truncated like the reference."""
    n0 = z**2 * (p * (1 - p)) / e**2
    return int(n0 / (1 + n0 / n))


def calibrate(
    originals: Sequence[Trajectory],
    *,
    corrected: bool = False,
    max_exact: int = 10_000,
    seed: int | None = None,
) -> Calibration:
    """Compute λ and max_dist over the originals (spec §4 "λ and max_dist").

    Over all ordered pairs (a, b) of the sample, diagonal included, with the schedule of
    :func:`index_schedule`: ``S = 1000·sqrt(mean s_km²)`` and ``Tm = sqrt(mean (|Δt|·v)²)``;
    ``λ = mean(S)/mean(Tm)`` and ``max_dist = max(S) + λ·max(Tm)``. The reference takes
    ``v = (speed(a)+speed(b))/2`` in km/h here (but m/s in the distance); ``corrected=True``
    takes m/s and :func:`robust_speed_kmh`, so that ``λ·Tm`` is in metres like ``S``. Above
    ``max_exact`` originals, a random sample of :func:`cochran_sample_size` is used.
    """
    sample = list(originals)
    if not sample:
        raise ValueError("calibration needs at least one trajectory")
    if len(sample) > max_exact:
        rng = np.random.default_rng(seed)
        picked = rng.choice(len(sample), cochran_sample_size(len(sample)), replace=False)
        sample = [sample[k] for k in np.sort(picked)]
    speed, factor = (robust_speed_kmh, 1 / 3.6) if corrected else (speed_kmh, 1.0)
    pack, n = Pack(sample), len(sample)
    speeds = pack.speeds(speed)
    all_rows = np.arange(n)
    sum_s = sum_t = max_s = max_t = 0.0
    for a, traj in enumerate(sample):
        row_s, row_t = np.empty(n), np.empty(n)
        n2 = len(traj)
        for n1, sel, rows in _groups(pack, all_rows, n2):
            s, dt, h = _aligned(pack, rows, n1, traj)
            row_s[sel] = _rms_rows(s, h) * 1000
            v = (speeds[rows] + speeds[a]) / 2 * factor
            row_t[sel] = _rms_rows(dt * v[:, None], h)
        sum_s += float(np.cumsum(row_s)[-1]) / n
        sum_t += float(np.cumsum(row_t)[-1]) / n
        max_s, max_t = max(max_s, float(row_s.max())), max(max_t, float(row_t.max()))
    mean_s, mean_t = sum_s / n, sum_t / n
    if mean_t == 0:
        raise ValueError("all trajectories coincide in time or stand still: λ is undefined")
    lam = mean_s / mean_t
    return Calibration(lam, max_s + max_t * lam, n, mean_s, mean_t)


def reference_point(originals: Sequence[Trajectory]) -> Trajectory:
    """The windowed search's reference: one point (t_min, lon_min, lat_min) over all originals."""
    return Trajectory(
        0,
        0,
        [min(int(x.t.min()) for x in originals)],
        [min(float(x.lon.min()) for x in originals)],
        [min(float(x.lat.min()) for x in originals)],
    )
