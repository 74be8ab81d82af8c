"""λ calibration on the compiled kernel, in chunks any executor can run.

Same λ and max_dist as :func:`app.core.trajectory.distances.calibrate` (the oracle, 1e-9), but each
work unit is a pure function of arrays: :func:`calibration_chunk` (a range of original rows).
:func:`plan_calibration` splits the work and :func:`finish_calibration` assembles it.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np

from app.core.trajectory.distances import (
    Calibration,
    cochran_sample_size,
    robust_speed_kmh,
    speed_kmh,
)
from app.core.trajectory.fast import kernels
from app.core.trajectory.fast.flat import Flat
from app.core.trajectory.fast.search import run
from app.core.trajectory.model import Trajectory

__all__ = [
    "calibration_chunk",
    "calibration_part",
    "fast_calibrate",
    "finish_calibration",
    "plan_calibration",
]


def plan_calibration(originals: Sequence[Trajectory], corrected: bool, chunks: int, seed=None):
    """The calibration sample as a Flat and ``chunks`` row ranges of about equal pair counts."""
    sample = list(originals)
    if not sample:
        raise ValueError("calibration needs at least one trajectory")
    if len(sample) > 10_000:  # the oracle's rule, same random draw
        rng = np.random.default_rng(seed)
        picked = rng.choice(len(sample), cochran_sample_size(len(sample)), replace=False)
        sample = [sample[k] for k in np.sort(picked)]
    flat = Flat.build(sample, robust_speed_kmh if corrected else speed_kmh)
    n = len(flat)
    # row a has n − 1 − a pairs: cut the triangle into slices of equal area
    cuts = [n - round(n * math.sqrt(1 - k / chunks)) for k in range(chunks + 1)]
    ranges = sorted({(lo, hi) for lo, hi in zip(cuts, cuts[1:], strict=False) if hi > lo})
    return flat, ranges


def calibration_chunk(flat: Flat, corrected: bool, lo: int, hi: int):
    """Row sums of S and Tm over b > a for rows a in [lo, hi), and their maxima."""
    out_s, out_t = np.empty(hi - lo), np.empty(hi - lo)
    factor = 1 / 3.6 if corrected else 1.0
    max_s, max_t = kernels.calibration_rows(flat.arrays, flat.speed, factor, lo, hi, out_s, out_t)
    return out_s, out_t, max_s, max_t


def calibration_part(shared: tuple[Flat, bool], lo: int, hi: int):
    """:func:`calibration_chunk` in the ``fn(shared, *args)`` form of a chunked map."""
    flat, corrected = shared
    return calibration_chunk(flat, corrected, lo, hi)


def finish_calibration(n: int, parts) -> Calibration:
    """λ and max_dist from the chunks' sums (each unordered pair counts twice)."""
    sum_s = 2 * math.fsum(x for part in parts for x in part[0])
    sum_t = 2 * math.fsum(x for part in parts for x in part[1])
    max_s = max((part[2] for part in parts), default=0.0)
    max_t = max((part[3] for part in parts), default=0.0)
    mean_s, mean_t = sum_s / n / n, sum_t / n / n
    if mean_t == 0:
        raise ValueError("all trajectories coincide in time or stand still: λ is undefined")
    lam = mean_s / mean_t
    return Calibration(lam, max_s + max_t * lam, n, mean_s, mean_t)


def fast_calibrate(originals, *, corrected=False, seed=None, executor=None, chunks=16):
    """Calibrate on the compiled kernel: the same λ and max_dist as the oracle (1e-9).

    The oracle is :func:`app.core.trajectory.distances.calibrate`.
    """
    flat, ranges = plan_calibration(originals, corrected, chunks, seed)
    parts = run(executor, calibration_chunk, [(flat, corrected, lo, hi) for lo, hi in ranges])
    return finish_calibration(len(flat), parts)
