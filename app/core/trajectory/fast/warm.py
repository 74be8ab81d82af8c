"""Compile every trajectory kernel into numba's on-disk cache before a user's first report.

The kernels are compiled on their first call (``cache=True``: machine code is kept beside
their source, ``__pycache__``, or under ``NUMBA_CACHE_DIR``) and loaded from there by later
processes. :func:`warm` makes those first calls on a few synthetic trajectories through the
same planning functions a report uses, so the argument types, hence the compiled signatures,
are the report's; ``make run`` and ``make test`` run it once per checkout
(``flask --app app analytics compile``), so no user's command pays the compilation.
"""

from __future__ import annotations

import numpy as np

from app.core.trajectory.fast import kernels
from app.core.trajectory.fast.calibration import fast_calibrate
from app.core.trajectory.fast.search import COMPILED, compiled_distance, fast_linkage
from app.core.trajectory.model import Trajectory

__all__ = ["cache_counts", "warm"]


def _walks(count: int, seed: int) -> list[Trajectory]:
    rng = np.random.default_rng(seed)
    out = []
    for tid in range(1, count + 1):
        points = 4 + tid % 3  # trajectories of several lengths: every schedule path
        t = 1_669_000_000 + np.cumsum(rng.integers(30, 240, points))
        lon = 1.2 + np.cumsum(rng.normal(0, 0.001, points))
        lat = 41.1 + np.cumsum(rng.normal(0, 0.001, points))
        out.append(Trajectory(tid, tid, t, lon, lat))
    return out


def warm() -> dict[str, int]:
    """Call every kernel once (each distance, exact and windowed, both calibrations); the
    cache counts afterwards (:func:`cache_counts`)."""
    originals, anonymized = _walks(6, 1), _walks(6, 2)
    for corrected in (False, True):
        lam = fast_calibrate(originals, corrected=corrected).lam
    for name in COMPILED:
        for windowed in (False, True):
            fast_linkage(name, originals, anonymized, lam, windowed=windowed, percent=50.0)
        compiled_distance(name, originals[0], anonymized[0], lam)
    return cache_counts()


def cache_counts() -> dict[str, int]:
    """Signatures loaded from numba's cache (``hits``) and compiled here (``misses``)."""
    dispatchers = [v for v in vars(kernels).values() if hasattr(v, "stats")]
    return {
        "hits": sum(sum(d.stats.cache_hits.values()) for d in dispatchers),
        "misses": sum(sum(d.stats.cache_misses.values()) for d in dispatchers),
    }
