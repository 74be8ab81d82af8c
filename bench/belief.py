"""Benchmark the belief audits: ``.venv/bin/python bench/belief.py [--quick]``.

1. Compatibility (spec §3) of a mass function with 1,000 focal sets on a 10,000-element frame
   against a true probability: Dinic on integer capacities (``app.core.belief._flow.max_flow``,
   via ``compatibility``) beside the plain Edmonds–Karp oracle on exact fractions, the
   implementation it replaced, on the same instance. Target: < 1 s.
2. The state audit of one page (10 pairs, 20 rows, 6 attributes in a mixed state) of a
   100,000-record source (``app.core.belief.state_audit.audit_state``), ``row`` model, beside a
   pure-Python scan of every record for each row's candidate set and true set. Also printed:
   with the ``pair`` model's k as well (``count_pair``, first sight). Target: < 1 s.

The flows must be equal, and the audit's rows (k, whether the true record is a candidate, the
true set and how much of it is covered) equal the naive scan's (exit status 1 otherwise).
``--quick``: a 500-element frame and a 2,000-record source. The machine is shared: ratios are
measured in the same run; note the load printed at the top.
"""

from __future__ import annotations

import math
import os
import random
import sys
import time
from fractions import Fraction
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from _check import agree, finish  # noqa: E402
from kapr_core import KINDS, generate, page  # noqa: E402

from app.core.belief import DisplayedPair, MassFunction, audit_state, compatibility  # noqa: E402
from app.core.belief._flow import edmonds_karp  # noqa: E402
from app.core.kapr import AnonymityIndex, consistent  # noqa: E402


def timed(fn, repeat: int = 1) -> tuple[float, object]:
    best, out = float("inf"), None
    for _ in range(repeat):
        start = time.perf_counter()
        out = fn()
        best = min(best, time.perf_counter() - start)
    return best, out


def _instance(n: int, focal: int, max_size: int) -> tuple[MassFunction, dict]:
    rng = random.Random(n)
    frame = tuple(range(n))
    weights: dict[frozenset, int] = {}
    for _ in range(focal):
        subset = frozenset(rng.sample(range(n), rng.randint(1, max_size)))
        weights[subset] = weights.get(subset, 0) + rng.randint(1, 9)
    total = sum(weights.values())
    m = MassFunction(frame, {s: Fraction(w, total) for s, w in weights.items()})
    return m, {x: Fraction(1, n) for x in frame}


def compatibility_bench(n: int, focal: int, max_size: int, baseline: bool) -> None:
    """Time ``compatibility``; with ``baseline`` also the plain Edmonds–Karp on integers."""
    m, uniform = _instance(n, focal, max_size)
    edges = sum(len(s) for s in m.focal)
    fast, result = timed(lambda: compatibility(m, uniform), repeat=3)
    print(f"compatibility: frame {n:,}, {len(m.focal):,} focal sets, {edges:,} memberships; "
          f"violation {float(result.violation):.4f}")  # fmt: skip
    print(f"  Dinic on integers      {fast * 1e3:9.1f} ms   (target < 1000 ms at 10,000 x 1,000)")
    if not baseline:
        return
    scale = math.lcm(*(v.denominator for v in [*m.focal.values(), *uniform.values()]))
    position = {x: j for j, x in enumerate(m.frame)}
    focal_sets = list(m.focal.items())

    def oracle():
        return edmonds_karp([int(v * scale) for _, v in focal_sets],
                            [[position[x] for x in b] for b, _ in focal_sets],
                            [int(uniform[x] * scale) for x in m.frame])  # fmt: skip

    slow, (flow, _) = timed(oracle)
    agree(Fraction(flow, scale) == result.flow, f"compatibility at {n:,}: the two max-flows")
    print(f"  Edmonds-Karp, integers {slow * 1e3:9.1f} ms   baseline, {slow / fast:6.1f}x slower")


def naive_audit(values: dict, pairs: list[DisplayedPair]) -> list[tuple]:
    """Scan every record per row: its candidates (row model) and its true set."""
    n, found = len(values["sex"]), []
    for pair in pairs:
        for number, side in enumerate(("left", "right")):
            row = pair.view.row(side)
            cands = [
                r for r in range(n) if all(consistent(values[a][r], ev) for a, ev in row.items())
            ]
            t = pair.truth[number]
            true_set = [r for r in range(n) if all(values[a][r] == values[a][t] for a in values)]
            found.append((len(cands), t in cands, len(true_set), len(set(true_set) & set(cands))))
    return found


def audit_bench(n: int) -> None:
    rng = np.random.default_rng(n)
    columns = generate(n)
    index = AnonymityIndex.build(columns, KINDS)
    views, _ = page(index, rng)
    fresh = AnonymityIndex.build(columns, KINDS)  # the audit's: no cached constraint or count
    # page() does not say which records it drew: the truth is a record each row is consistent with
    pairs = [
        DisplayedPair(view, tuple(int(index.candidates(view.row(s))[0]) for s in ("left", "right")),
                      (fresh, fresh), number)
        for number, view in enumerate(views)
    ]  # fmt: skip
    args = {"model": "row", "kappa": 1, "n_attributes": len(KINDS)}
    cold, audit = timed(lambda: audit_state(pairs, models=("row",), **args))
    warm, _ = timed(lambda: audit_state(pairs, models=("row",), **args), repeat=3)
    both, _ = timed(lambda: audit_state(pairs, models=("row", "pair"), **args))
    values = {a: [index.value(a, r) for r in range(n)] for a in KINDS}
    sample = pairs[:2]
    naive, scanned = timed(lambda: naive_audit(values, sample))
    audited = [
        (r.k, r.true_in_candidates, r.true_set_size, r.true_set_covered)
        for r in audit.rows[: 2 * len(sample)]
    ]
    agree(audited == scanned, f"state audit at {n:,}: rows against the naive scan")
    naive *= len(pairs) / len(sample)
    s = audit.summary
    print(
        f"state audit: {n:,} records, a page of {len(pairs)} pairs ({s.rows} rows); "
        f"mean P(true) {float(s.mean_true_probability):.4f}, unique rows {s.unique_rows}"
    )
    print(f"  row model, first sight {cold * 1e3:9.1f} ms   (target < 1000 ms)")
    print(f"  row model, again       {warm * 1e3:9.1f} ms")
    print(f"  with pair-model k too  {both * 1e3:9.1f} ms   (count_pair, first sight)")
    print(
        f"  naive scan (~{len(sample)} of {len(pairs)} pairs, scaled) {naive * 1e3:9.1f} ms   "
        f"baseline, {naive / cold:6.1f}x slower than first sight"
    )


def main(argv: list[str]) -> int:
    quick = "--quick" in argv
    print(f"load {os.getloadavg()[0]:.2f} {os.getloadavg()[1]:.2f} on {os.cpu_count()} cores")
    if quick:
        compatibility_bench(500, 60, 30, baseline=True)
        audit_bench(2_000)
        return finish()
    compatibility_bench(2_000, 200, 60, baseline=True)  # both finish: the ratio
    compatibility_bench(10_000, 1_000, 60, baseline=False)  # the target size
    audit_bench(100_000)
    return finish()


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
