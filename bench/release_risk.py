"""Benchmark the release-risk check: ``.venv/bin/python bench/release_risk.py [--quick]``.

``app.core.release.assess_release`` (numpy and sparse matrices) beside a plain-Python oracle
written from the definitions (``docs/release-risk.md``), on the same synthetic table
(age in decades, a 30-value zip with 2 % suppressed, sex; a 4-value diagnosis and a 200-value
income as sensitive attributes):

1. ``exclude`` (ARX) on 30,000 records: the oracle groups records in a dict.
2. ``wildcard`` (sdcMicro) on 3,000 records: the oracle compares every pair of records
   (O(n²), the definition of a wildcard match).

Both paths must agree on k, sample uniques, the prosecutor risks, the marketer risk and every
sensitive attribute's distinct and entropy l, recursive c and t-closeness (exit status 1
otherwise). ``--quick``: 3,000 and 600 records. Times are ratios in the same run (shared
machine); the population-uniqueness models are timed apart, with income as a fourth QI
(many sample uniques), at sampling fractions 0.05 and 0.5.
"""

from __future__ import annotations

import math
import os
import sys
import time
from collections import Counter
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from _check import agree, finish  # noqa: E402
from scipy import stats  # noqa: E402

from app.core.release import assess_release  # noqa: E402
from app.core.release._population import one_drawn  # noqa: E402

QI, SENSITIVE = ("age", "zip", "sex"), ("dx", "income")


def table(n: int, seed: int = 7) -> dict[str, list[str]]:
    rng = np.random.default_rng(seed)
    zips = [str(z) for z in rng.integers(0, 30, n)]
    for i in np.flatnonzero(rng.random(n) < 0.02):
        zips[i] = "*"
    return {
        "age": [str(a // 10 * 10) for a in rng.integers(18, 90, n)],
        "zip": zips,
        "sex": list(rng.choice(["F", "M"], n)),
        "dx": list(rng.choice(["a", "b", "c", "d"], n)),
        "income": [str(x) for x in rng.integers(0, 200, n)],
    }


def _stats(members: list[int], rows, t: float, numeric: bool, overall: Counter) -> tuple:
    """distinct, entropy-l, r1/rest, EMD of one class (a list of record indices)."""
    counts = Counter(rows[i] for i in members)
    total = sum(counts.values())
    ordered = sorted(counts.values(), reverse=True)
    h = -sum(c / total * math.log(c / total) for c in ordered)
    rest = total - ordered[0]
    n_all = sum(overall.values())
    values = sorted(overall, key=float) if numeric else list(overall)
    if numeric:
        cum, emd = 0.0, 0.0
        for v in values:
            cum += counts.get(v, 0) / total - overall[v] / n_all
            emd += abs(cum)
        emd /= max(len(values) - 1, 1)
    else:
        emd = 0.5 * sum(abs(counts.get(v, 0) / total - overall[v] / n_all) for v in values)
    return len(counts), math.exp(h), (ordered[0] / rest if rest else math.inf), emd


def oracle(data: dict[str, list[str]], convention: str, t: float) -> dict:
    """The report's numbers from the definitions, one record at a time."""
    n = len(data["age"])
    keys = [tuple(data[q][i] for q in QI) for i in range(n)]
    kept = [i for i in range(n) if convention == "wildcard" or "*" not in keys[i]]
    if convention == "exclude":
        groups: dict[tuple, list[int]] = {}
        for i in kept:
            groups.setdefault(keys[i], []).append(i)
        match = {i: groups[keys[i]] for i in kept}
    else:

        def same(a, b):
            return all(x == y or x == "*" or y == "*" for x, y in zip(a, b, strict=True))

        match = {i: [j for j in kept if same(keys[i], keys[j])] for i in kept}
    f = {i: len(match[i]) for i in kept}
    m = len(kept)
    out = {
        "k": min(f.values()),
        "sample_uniques": sum(1 for i in kept if f[i] == 1),
        "records_at_risk": sum(1 for i in kept if 1 / f[i] > t) / m,
        "highest": 1 / min(f.values()),
        "lowest": 1 / max(f.values()),
        "average": sum(1 / f[i] for i in kept) / m,
    }
    for s in SENSITIVE:
        overall = Counter(data[s])
        numeric = s == "income"
        stats = [_stats(match[i], data[s], t, numeric, overall) for i in kept]
        out[s] = (
            min(x[0] for x in stats),
            min(x[1] for x in stats),
            max(x[2] for x in stats),
            max(x[3] for x in stats),
        )
    return out


def compare(data, convention: str, t: float = 0.2) -> None:
    n = len(data["age"])
    start = time.perf_counter()
    report = assess_release(data, QI, SENSITIVE, convention=convention, threshold=t)
    fast = time.perf_counter() - start
    start = time.perf_counter()
    want = oracle(data, convention, t)
    slow = time.perf_counter() - start
    print(f"{convention}: {n:,} records, {report.sample.classes:,.0f} classes, k {report.sample.k}")
    print(f"  assess_release    {fast * 1e3:10.1f} ms")
    print(f"  oracle (Python)   {slow * 1e3:10.1f} ms   ({slow / fast:.0f}x)")
    s = report.sample
    got = {
        "k": s.k,
        "sample_uniques": s.sample_uniques,
        "records_at_risk": s.prosecutor.records_at_risk,
        "highest": s.prosecutor.highest,
        "lowest": s.prosecutor.lowest,
        "average": s.prosecutor.average,
    }
    for name, value in got.items():
        agree(math.isclose(value, want[name], rel_tol=1e-9), f"{convention} {name}")
    agree(math.isclose(s.marketer, want["average"], rel_tol=1e-9), f"{convention} marketer")
    for d in report.diversity:
        exp = want[d.attribute]
        mine = (d.l_distinct, d.l_entropy, d.recursive_c, d.t_closeness)
        for label, a, b in zip(("l", "entropy l", "c", "t"), mine, exp, strict=True):
            ok = a == b or math.isclose(a, b, rel_tol=1e-9, abs_tol=1e-12)
            agree(ok, f"{convention} {d.attribute} {label}: {a} vs {b}")


def uniqueness(data) -> None:
    """The models at sampling fractions 0.05 and 0.5, then at N = 10^11 and 2^53 (issue 42.1:
    their time must not grow with N), and Zayatz's closed form against SciPy's hypergeom."""
    n = len(data["age"])
    times = {}
    for population in (n * 20, n * 2, 10**11, 2**53):
        start = time.perf_counter()
        report = assess_release(data, (*QI, "income"), population=population)
        times[population] = took = time.perf_counter() - start
        pu = report.population
        print(
            f"population {population:,} (pi {pu.sampling_fraction:.3g}): Zayatz {pu.zayatz}, "
            f"Pitman {pu.pitman}, SNB {pu.snb}, Dankar {pu.dankar_model}; {took * 1e3:.1f} ms"
            f" ({took / times[n * 20]:.2f}x the time at pi 0.05)"
        )
    sizes = np.arange(1, 200)
    closed = one_drawn(sizes, n * 20, n)
    scipy = stats.hypergeom.pmf(1, n * 20, sizes, n)
    agree(np.allclose(closed, scipy, rtol=1e-8, atol=1e-300), "Zayatz's h against SciPy")
    # The baseline: SciPy's time grew with N on a small sample (the paper's 4 records in a
    # class of 1 and one of 3; the attack round's GET took 0.83 s at 10^9, 8 s at 10^10).
    big, few = (10**7 if "--quick" in sys.argv else 10**9), np.array([1, 3])
    start = time.perf_counter()
    stats.hypergeom.pmf(1, big, few, 4)
    before = time.perf_counter() - start
    start = time.perf_counter()
    one_drawn(few, big, 4)
    after = time.perf_counter() - start
    print(
        f"h(1; N, j, 4) at N = {big:,}: SciPy {before * 1e3:.1f} ms, closed form "
        f"{after * 1e3:.3f} ms ({before / after:.0f}x)"
    )


def main() -> int:
    quick = "--quick" in sys.argv
    print(f"load average {os.getloadavg()[0]:.1f}")
    compare(table(3_000 if quick else 30_000), "exclude")
    compare(table(600 if quick else 3_000), "wildcard")
    uniqueness(table(3_000 if quick else 30_000))
    return finish()


if __name__ == "__main__":
    sys.exit(main())
