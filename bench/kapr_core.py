"""Benchmark the KAPR core against a naive scan: ``.venv/bin/python bench/kapr_core.py``.

Generates seeded person-like sources (Zipf-like first and last names, dates of birth, sex,
race, a 9-digit id) at 10k, 100k and 1M records, and prints for each: index build time and
memory, the preview of a page (10 pairs x 2 rows x 6 attributes, ``row`` and ``pair`` models),
and one reveal's charge, each beside a pure-Python scan over every record. Scans too slow to
repeat 120 times are timed on a few cells and scaled up (marked ``~``). The scan's charges
(``row`` model) must equal the preview's and the reveal's (exit status 1 otherwise).
``--quick``: 2,000 records only.
"""

from __future__ import annotations

import sys
import time
from fractions import Fraction
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from _check import agree, finish  # noqa: E402

from app.core.disclosure import AttributeType, Level  # noqa: E402
from app.core.kapr import (  # noqa: E402
    AnonymityIndex,
    Evidence,
    Marker,
    PairView,
    consistent,
    next_costs,
    reveal_cost,
)

KINDS = {
    "first": AttributeType.STRING,
    "last": AttributeType.STRING,
    "dob": AttributeType.DATE,
    "sex": AttributeType.CATEGORY,
    "race": AttributeType.CATEGORY,
    "ident": AttributeType.ID,
}
SYLLABLES = ["ma", "ry", "jo", "an", "el", "li", "sa", "ro", "ber", "ta", "ni", "ka", "son", "ez"]


def _zipf_names(rng, pool: int, n: int) -> list[str]:
    names = sorted(
        {"".join(rng.choice(SYLLABLES, rng.integers(1, 4))).title() for _ in range(pool)}
    )
    weights = 1 / np.arange(1, len(names) + 1)
    return [names[i] for i in rng.choice(len(names), n, p=weights / weights.sum())]


def generate(n: int, seed: int = 7) -> dict[str, list[str | None]]:
    rng = np.random.default_rng(seed)
    days = rng.integers(0, 80 * 365, n)
    dates = np.datetime64("1930-01-01") + days.astype("timedelta64[D]")
    dob = [d.strftime("%m/%d/%Y") for d in dates.astype(object)]
    missing = rng.random(n) < 0.02
    return {
        "first": _zipf_names(rng, 300, n),
        "last": _zipf_names(rng, 2000, n),
        "dob": [None if m else d for d, m in zip(dob, missing, strict=True)],
        "sex": list(rng.choice(["F", "M"], n)),
        "race": list(rng.choice(["White", "Black", "Hispanic", "Asian", "Other"], n)),
        "ident": [f"{x:09d}" for x in rng.integers(0, 10**9, n)],
    }


def _levels(mine: str | None, theirs: str | None, kind) -> list[Evidence]:
    """masked -> partial (differing positions, when the lengths agree) -> full."""
    chain = [Evidence.masked(mine)]
    if mine and theirs and kind is not AttributeType.CATEGORY and len(mine) == len(theirs):
        diff = [p for p, (a, b) in enumerate(zip(mine, theirs, strict=True)) if a != b]
        if 0 < len(diff) < len(mine):
            chain.append(Evidence.partial(mine, diff))
    chain.append(Evidence.full(mine, category=kind is AttributeType.CATEGORY))
    return chain


def page(index: AnonymityIndex, rng, n_pairs: int = 10):
    """Return 10 pairs in a mixed state and each cell's next evidence."""
    pairs, chains, states = [], {}, []
    for number in range(n_pairs):
        i, j = (int(x) for x in rng.choice(index.n, 2, replace=False))
        v = {a: index.value(a, i) for a in KINDS}
        w = {a: index.value(a, j) for a in KINDS}
        rows = {}
        for side, mine, theirs in (("left", v, w), ("right", w, v)):
            rows[side] = {}
            for a, kind in KINDS.items():
                chain = _levels(mine[a], theirs[a], kind)
                level = int(rng.integers(0, len(chain)))  # some cells already revealed
                rows[side][a] = chain[level]
                chains[number, side, a] = chain[level + 1] if level + 1 < len(chain) else None
        markers = {a: Marker.between(v[a], w[a]) for a in KINDS}
        pairs.append(PairView(rows["left"], rows["right"], markers))
        states.append((v, w))
    return pairs, chains


def naive_k(values: dict[str, list[str | None]], row) -> int:
    """Scan every record (pure Python) and count those consistent with ``row``."""
    shown = [(values[a], ev) for a, ev in row.items() if ev.level is not Level.MASKED]
    return sum(all(consistent(col[r], ev) for col, ev in shown) for r in range(len(values["sex"])))


def naive_cost(values, pair: PairView, side, attribute, evidence) -> Fraction:
    """Charge one reveal by scanning (row model): k of the changed row before and after."""
    row = pair.row(side)
    after = {**row, attribute: evidence}

    def term(shown) -> Fraction:  # Σ_j p_ij / k_i of one row (0 when it discloses nothing)
        p = sum((ev.p for ev in shown.values()), Fraction(0))
        return p / naive_k(values, shown) if p else Fraction(0)

    return Fraction(1, 20 * 6) * (term(after) - term(row))  # kappa / (N·D) of a page


def timed(fn, repeat: int = 1) -> float:
    best = float("inf")
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - start)
    return best


def fmt(seconds: float) -> str:
    return f"{seconds * 1e3:9.2f} ms" if seconds < 10 else f"{seconds:9.1f} s "


def run(n: int) -> None:
    rng = np.random.default_rng(n)
    columns = generate(n)
    start = time.perf_counter()
    index = AnonymityIndex.build(columns, KINDS)
    build = time.perf_counter() - start
    values = {a: [index.value(a, r) for r in range(n)] for a in KINDS}  # naive: normalised lists
    naive_setup = timed(lambda: {a: [index.value(a, r) for r in range(n)] for a in ["sex"]}) * 6
    raw_bytes = sum(sys.getsizeof(v) + sum(sys.getsizeof(x) for x in v) for v in values.values())
    pairs, nexts = page(index, rng)
    scale = {"kappa": 1, "n_rows": 20, "n_attributes": 6}
    cells = [key for key, ev in nexts.items() if ev is not None]

    def preview(model):
        def go():
            return next_costs(pairs, lambda *k: nexts[k], index, index, **scale, model=model)

        return go

    cold_row = timed(preview("row"))  # constraint cache empty
    previewed = preview("row")()
    fast_row = timed(preview("row"), repeat=5)
    fast_pair = timed(preview("pair"), repeat=2)
    sample = cells if n <= 10_000 else cells[: max(2, 200_000 // n)]
    charged = {}
    naive_sample = timed(
        lambda: charged.update(
            {c: naive_cost(values, pairs[c[0]], c[1], c[2], nexts[c]) for c in sample}
        )
    )
    agree(
        all(previewed[c] == charged[c] for c in sample),
        f"{n:,} records: the page preview against the scan's charges",
    )
    naive_page = naive_sample * len(cells) / len(sample)
    approx = "" if len(sample) == len(cells) else "~"
    one = cells[0]
    fast_one = timed(
        lambda: reveal_cost(pairs[one[0]], one[1], one[2], nexts[one], index, index, **scale),
        repeat=5,
    )
    naive_one = timed(lambda: naive_cost(values, pairs[one[0]], one[1], one[2], nexts[one]))
    charge = reveal_cost(pairs[one[0]], one[1], one[2], nexts[one], index, index, **scale)
    agree(charge == charged[one], f"{n:,} records: one reveal's charge against the scan's")
    print(f"\n{n:,} records x 6 attributes ({len(cells)} cells to preview)")
    print(f"  index build     {fmt(build)}   naive setup {fmt(naive_setup)}")
    print(
        f"  index memory    {index.nbytes / 2**20:9.1f} MB  naive lists {raw_bytes / 2**20:.1f} MB"
    )
    print(
        f"  page preview    {fmt(fast_row)}   naive {approx}{fmt(naive_page)}"
        f"   x{naive_page / fast_row:,.0f}   (first call {fmt(cold_row)}; pair model"
        f" {fmt(fast_pair)})"
    )
    print(
        f"  one reveal      {fmt(fast_one)}   naive {fmt(naive_one)}   x{naive_one / fast_one:,.0f}"
    )


if __name__ == "__main__":
    for size in (2_000,) if "--quick" in sys.argv else (10_000, 100_000, 1_000_000):
        run(size)
    sys.exit(finish())
