"""Time exact vs windowed record linkage: ``.venv/bin/python bench/trajectory.py [n] [points]``.

Generates n seeded random-walk trajectories (default 2,000 × 50 points, starting within 2 km
of each other in Tarragona within one hour) and anonymizes each by ~500 m of Gaussian noise on
every point and up to ±5 min of time shift. Calibrates λ once over the originals, then runs the
exact search (the baseline) and the windowed search with the default window and with 1%, and
prints each one's time, its speed-up over the exact search and its RL: the accuracy trade-off.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from app.core.trajectory.distances import Martinez2021, calibrate  # noqa: E402
from app.core.trajectory.linkage import record_linkage, windowed_record_linkage  # noqa: E402
from app.core.trajectory.model import Trajectory  # noqa: E402


def generate(n: int, points: int, seed: int = 11) -> tuple[list[Trajectory], list[Trajectory]]:
    rng = np.random.default_rng(seed)
    originals, anonymized = [], []
    for tid in range(1, n + 1):
        start = 1_669_000_000 + int(rng.integers(0, 3_600))
        t = start + np.cumsum(rng.integers(30, 240, points)) - 30
        lon = 1.20 + rng.uniform(0, 0.02) + np.cumsum(rng.normal(0, 0.0015, points))
        lat = 41.08 + rng.uniform(0, 0.02) + np.cumsum(rng.normal(0, 0.0012, points))
        originals.append(Trajectory(tid, tid, t, lon, lat))
        shift = int(rng.integers(-300, 301))
        noise = rng.normal(0, 0.006, (2, points))
        anonymized.append(Trajectory(tid, tid, t + shift, lon + noise[0], lat + noise[1]))
    return originals, anonymized


def timed(label: str, fn):
    start = time.perf_counter()
    value = fn()
    return label, time.perf_counter() - start, value


def main() -> None:
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 2000
    points = int(sys.argv[2]) if len(sys.argv) > 2 else 50
    originals, anonymized = generate(n, points)
    _, seconds, cal = timed("calibrate", lambda: calibrate(originals))
    print(
        f"{n} trajectories x {points} points; λ = {cal.lam:.6g} over all originals "
        f"in {seconds:.2f} s"
    )
    dist = Martinez2021(cal.lam)
    runs = [
        timed("exact (baseline)", lambda: record_linkage(originals, anonymized, dist)),
        timed("windowed, default", lambda: windowed_record_linkage(originals, anonymized, dist)),
        timed("windowed, 1%", lambda: windowed_record_linkage(originals, anonymized, dist, 1.0)),
    ]
    base = runs[0][1]
    print(f"{'search':<20}{'window':>8}{'time s':>10}{'speed-up':>10}{'RL %':>10}{'missed':>8}")
    for label, seconds, result in runs:
        window = "all" if result.window is None else f"{result.window:g}"
        missed = sum(not link.true_in_candidates for link in result.links)
        print(
            f"{label:<20}{window:>8}{seconds:>10.2f}{base / seconds:>9.1f}x"
            f"{result.percent:>10.2f}{missed:>8}"
        )


if __name__ == "__main__":
    main()
