"""Trajectory record linkage at scale: ``.venv/bin/python bench/trajectory.py [--quick]``.

Generates seeded random-walk trajectories (50 points, starting within 2 km of each other in
Tarragona within one hour) anonymized by ~500 m of Gaussian noise and up to ±5 min of time
shift, then prints, in one run:

1. **Exact RL, λ included** (``--sizes``, default 2,000 and 10,000): the compiled kernels on
   a thread pool against a straightforward per-pair Python implementation of the same
   definition (``bench/_trajectory_naive.py``), timed on a random subset of pairs and scaled
   to all pairs; its links on a sample of queries must equal ours. At sizes up to
   ``--oracle-max`` (2,000) the plain numpy implementation (the tests' oracle) also runs in
   full: same λ (1e-9) and identical RL required.
2. **Windowed vs plain windowed** at the first size, for several windows: the compiled
   search against the plain numpy one, identical RL required.
3. **100k windowed** (``--big``): calibration (Cochran sample), default and 1% windows.

Every comparison must hold (exit status 1 otherwise). ``--quick``: 150 and 300 trajectories,
1,500 windowed.
"""

from __future__ import annotations

import argparse
import math
import os
import platform
import random
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parent))

import _trajectory_naive as naive  # noqa: E402
from _check import agree, finish  # noqa: E402

from app.core.trajectory.distances import Martinez2021, calibrate  # noqa: E402
from app.core.trajectory.fast import fast_calibrate, fast_linkage  # noqa: E402
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


def timed(fn):
    start = time.perf_counter()
    value = fn()
    return value, time.perf_counter() - start


def naive_estimate(originals, anonymized, lam, pairs: int, queries: int, result) -> tuple:
    """Per-pair Python: seconds for all pairs (scaled from a subset) and a check of its links."""
    rng = random.Random(5)
    n = len(originals)
    pts_o = [naive.points(x) for x in originals]
    pts_a = [naive.points(x) for x in anonymized]
    sp_o, sp_a = [naive.speed(p) for p in pts_o], [naive.speed(p) for p in pts_a]
    sample = [(rng.randrange(n), rng.randrange(n)) for _ in range(pairs)]
    _, cal = timed(
        lambda: [naive.calibration_terms(pts_o[a], pts_o[b], sp_o[a], sp_o[b]) for a, b in sample]
    )  # noqa: E501
    _, dist = timed(
        lambda: [naive.martinez(pts_o[a], pts_a[b], sp_o[a], sp_a[b], lam) for a, b in sample]
    )  # noqa: E501
    speeds_cost = 0.0  # the speeds are per trajectory, negligible next to n² pairs
    checked = rng.sample(range(len(anonymized)), min(queries, len(anonymized)))
    same = True
    for q in checked:
        _, rows = naive.nearest(pts_a[q], pts_o, sp_o, sp_a[q], lam)
        same &= tuple(originals[r].id for r in rows) == result.links[q].closest_ids
    scale = n * n / pairs
    return cal * scale + speeds_cost, dist * len(anonymized) * n / pairs, same, len(checked)


def exact_section(n, points, pool, oracle_max, pairs, queries) -> None:
    originals, anonymized = generate(n, points)
    cal, t_cal = timed(lambda: fast_calibrate(originals, executor=pool))
    dist = Martinez2021(cal.lam)
    res, t_search = timed(
        lambda: fast_linkage("martinez2021", originals, anonymized, cal.lam, executor=pool)
    )  # noqa: E501
    ours = t_cal + t_search
    n_cal, n_search, same, checked = naive_estimate(
        originals, anonymized, cal.lam, pairs, queries, res
    )  # noqa: E501
    print(f"\n## exact, n = {n:,} x {points} points (λ over all {cal.sample_size:,} originals)")
    print(f"{'':<28}{'λ calib s':>11}{'search s':>11}{'total s':>11}{'vs ours':>10}{'RL %':>12}")
    print(
        f"{'compiled (ours)':<28}{t_cal:>11.2f}{t_search:>11.2f}{ours:>11.2f}"
        f"{1:>9.0f}x{res.percent:>12.6f}"
    )
    print(
        f"{'per-pair Python (scaled)':<28}{n_cal:>11.0f}{n_search:>11.0f}{n_cal + n_search:>11.0f}"
        f"{(n_cal + n_search) / ours:>9.0f}x{'':>12}"
    )
    print(f"  per-pair Python timed on {pairs:,} random pairs per pass; its links on {checked} "
          f"sampled queries {'equal ours' if same else 'DIFFER'}")  # fmt: skip
    agree(same, f"exact, n = {n:,}: the per-pair Python links against ours")
    if n <= oracle_max:
        plain_cal, tp_cal = timed(lambda: calibrate(originals))
        plain, tp_search = timed(lambda: record_linkage(originals, anonymized, dist))
        lam_ok = math.isclose(plain_cal.lam, cal.lam, rel_tol=1e-9)
        print(
            f"{'plain numpy (oracle)':<28}{tp_cal:>11.2f}{tp_search:>11.2f}"
            f"{tp_cal + tp_search:>11.2f}{(tp_cal + tp_search) / ours:>9.0f}x{plain.percent:>12.6f}"
        )
        print(f"  oracle: λ {'equal (1e-9)' if lam_ok else 'DIFFERS'}, RL "
              f"{'identical' if plain.risk == res.risk else 'DIFFERS'} ({res.risk})")  # fmt: skip
        agree(lam_ok and plain.risk == res.risk, f"exact, n = {n:,}: λ and RL against the oracle")


def windowed_section(n, points, pool) -> None:
    originals, anonymized = generate(n, points)
    lam = fast_calibrate(originals, executor=pool).lam
    dist = Martinez2021(lam)
    print(f"\n## windowed vs plain windowed, n = {n:,} (λ = {lam:.6g})")
    header = ("window", "m", "plain s", "ours s", "speed-up", "RL %", "same RL")
    print("".join(f"{h:>{w}}" for h, w in zip(header, (10, 8, 10, 10, 10, 12, 9), strict=True)))
    for percent in (1.0, 5.0, 10.0, 50.0, 100.0, None):
        plain, tp = timed(lambda p=percent: windowed_record_linkage(originals, anonymized, dist, p))  # noqa: E501
        ours, to = timed(
            lambda p=percent: fast_linkage(
                "martinez2021", originals, anonymized, lam, windowed=True, percent=p, executor=pool
            )
        )  # noqa: E501
        label = "default" if percent is None else f"{percent:g}%"
        print(
            f"{label:>10}{ours.window:>8g}{tp:>10.3f}{to:>10.3f}{tp / to:>9.1f}x"
            f"{ours.percent:>12.4f}{'yes' if ours.risk == plain.risk else 'NO':>9}"
        )
        agree(ours.risk == plain.risk, f"windowed {label}, n = {n:,}: RL against the plain")


def big_section(n, points, pool) -> None:
    (originals, anonymized), t_gen = timed(lambda: generate(n, points))
    cal, t_cal = timed(lambda: fast_calibrate(originals, executor=pool, seed=1))
    print(f"\n## windowed at n = {n:,} (generated in {t_gen:.1f} s; λ over a Cochran sample "
          f"of {cal.sample_size:,} in {t_cal:.2f} s)")  # fmt: skip
    for percent in (None, 1.0):
        res, seconds = timed(
            lambda p=percent: fast_linkage(
                "martinez2021",
                originals,
                anonymized,
                cal.lam,
                windowed=True,
                percent=p,
                executor=pool,
            )
        )  # noqa: E501
        label = "default" if percent is None else f"{percent:g}%"
        print(f"  window {label} (m = {res.window:g}): {seconds:.1f} s, RL {res.percent:.4f} %, "
              f"{sum(x.candidates for x in res.links):,} distances")  # fmt: skip


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="2000,10000")
    parser.add_argument("--points", type=int, default=50)
    parser.add_argument("--big", type=int, default=100_000)
    parser.add_argument("--oracle-max", type=int, default=2000)
    parser.add_argument("--pairs", type=int, default=2000, help="per-pair Python subset")
    parser.add_argument("--queries", type=int, default=5, help="naive links checked")
    parser.add_argument("--threads", type=int, default=os.cpu_count() or 1)
    parser.add_argument("--quick", action="store_true", help="150 and 300; 1,500 windowed")
    args = parser.parse_args()
    if args.quick:
        args.sizes, args.big, args.pairs, args.queries = "150,300", 1500, 200, 3
    sizes = [int(s) for s in args.sizes.split(",")]
    print(f"# bench/trajectory.py  {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}")
    print(f"machine: {platform.processor() or platform.machine()}, nproc {os.cpu_count()}, "
          f"Python {platform.python_version()}; load {os.getloadavg()[0]:.2f}; "
          f"{args.threads} threads")  # fmt: skip
    with ThreadPoolExecutor(args.threads) as pool:
        fast_linkage("martinez2021", *generate(3, 5), 0.2)  # load the compiled kernels once
        for n in sizes:
            exact_section(n, args.points, pool, args.oracle_max, args.pairs, args.queries)
        windowed_section(sizes[0], args.points, pool)
        if args.big:
            big_section(args.big, args.points, pool)
    print(f"\nload at the end: {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()
    sys.exit(finish())
