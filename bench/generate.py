"""Benchmark the synthetic record generator: ``.venv/bin/python bench/generate.py [--quick]``.

Times :func:`app.datagen.write_csv` for 100k and 1M records into a temporary directory
and prints records per second, beside a naive per-record pure-Python generator (the
``random`` module and :class:`csv.writer`, same columns and discrepancy kinds) timed on
100k records in the same run, so the ratio is comparable across machines. Both files must
have the same header and as many records as asked (exit status 1 otherwise). ``--quick``:
5,000 records each.
"""

from __future__ import annotations

import csv
import random
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from _check import agree, finish  # noqa: E402

from app.datagen import COLUMNS, Config, write_csv  # noqa: E402
from app.datagen.names import FEMALE_FIRST, MALE_FIRST, SURNAMES  # noqa: E402

LETTERS = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
DEFAULT = Config()


def _weights(pool: tuple[str, ...], cfg: Config) -> list[float]:
    return [(r + cfg.zipf_offset) ** -cfg.zipf_exponent for r in range(1, len(pool) + 1)]


def _edit(name: str, rng: random.Random, cfg: Config) -> str:
    """Apply at most one edit to ``name``, one record at a time."""
    u, i = rng.random(), rng.randrange(max(len(name), 1))
    if u < cfg.typo:
        return name[:i] + rng.choice(LETTERS) + name[i + 1 :]
    if u < cfg.typo + cfg.transposition and len(name) > 1:
        i = min(i, len(name) - 2)
        return name[:i] + name[i + 1] + name[i] + name[i + 2 :]
    if u < cfg.typo + cfg.transposition + cfg.insertion:
        return name[:i] + rng.choice(LETTERS) + name[i:]
    if u < cfg.typo + cfg.transposition + cfg.insertion + cfg.deletion:
        return name[:i] + name[i + 1 :]
    return name


def naive_csv(path: Path, n: int, seed: int, cfg: Config = DEFAULT) -> int:
    """Write ``n`` records the straightforward way: one Python dict per person."""
    rng = random.Random(seed)
    w_last, w_male, w_female = (_weights(p, cfg) for p in (SURNAMES, MALE_FIRST, FEMALE_FIRST))
    written, cluster = 0, 0
    with open(path, "w", encoding="utf-8", newline="") as fh:
        out = csv.writer(fh)
        out.writerow(COLUMNS)
        while written < n:
            cluster += 1
            male = rng.random() < 0.5
            pool, weights = (MALE_FIRST, w_male) if male else (FEMALE_FIRST, w_female)
            person = {
                "voter_reg_num": f"{rng.randrange(10**10):010d}",
                "first_name": rng.choices(pool, weights)[0],
                "last_name": rng.choices(SURNAMES, w_last)[0],
                "dob": f"{rng.randint(1, 12):02d}/{rng.randint(1, 28):02d}/"
                f"{rng.randint(1940, 2006)}",
                "sex": "M" if male else "F",
                "race": rng.choice("WBAIMOU"),
                "income": str(round(rng.lognormvariate(10.86, 0.7), -2)),
                "diagnosis": rng.choice(["None", "Hypertension, essential", "Asthma"]),
            }
            dups = min(rng.randint(1, 3), cfg.max_duplicates) if rng.random() < 0.5 else 0
            for k in range(min(1 + dups, n - written)):
                rec = dict(person)
                if k:
                    rec["first_name"] = _edit(rec["first_name"], rng, cfg)
                    rec["last_name"] = _edit(rec["last_name"], rng, cfg)
                    if rng.random() < cfg.name_swap:
                        rec["first_name"], rec["last_name"] = rec["last_name"], rec["first_name"]
                    for field in ("first_name", "last_name", "dob", "sex", "race"):
                        if rng.random() < cfg.missing:
                            rec[field] = ""
                written += 1
                out.writerow([str(written), str(cluster)] + [rec[c] for c in COLUMNS[2:]])
    return written


def _timed(fn, *args) -> float:
    start = time.perf_counter()
    fn(*args)
    return time.perf_counter() - start


def _shape(path: Path) -> tuple[list[str], int]:
    """The header and the number of records of a written file."""
    with open(path, encoding="utf-8", newline="") as fh:
        rows = csv.reader(fh)
        return next(rows), sum(1 for _ in rows)


def main(argv: list[str]) -> int:
    quick = "--quick" in argv
    naive_n, sizes = (5_000, (5_000,)) if quick else (100_000, (100_000, 1_000_000))
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp)
        base = _timed(naive_csv, out / "naive.csv", naive_n, 1)
        base_rate = naive_n / base
        naive_shape = _shape(out / "naive.csv")
        agree(naive_shape == (list(COLUMNS), naive_n), "naive file: header and records")
        print(f"{'generator':<32}{'records':>10}{'seconds':>10}{'records/s':>12}{'vs naive':>10}")
        print(f"{'naive pure Python':<32}{naive_n:>10,}{base:>10.2f}{base_rate:>12,.0f}{1:>9.1f}x")
        for n in sizes:
            secs = _timed(write_csv, out / f"gen{n}.csv", n, 1)
            size = (out / f"gen{n}.csv").stat().st_size / 1e6
            rate = n / secs
            label = f"app.datagen.write_csv ({size:.0f} MB)"
            print(f"{label:<32}{n:>10,}{secs:>10.2f}{rate:>12,.0f}{rate / base_rate:>9.1f}x")
            shape = _shape(out / f"gen{n}.csv")
            agree(shape == (naive_shape[0], n), f"write_csv({n:,}): the naive header, n records")
    return finish()


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
