"""Benchmark the in-app blocking at scale: ``.venv/bin/python bench/blocking.py [--quick]``.

On ``--records`` generated people (default 1,000,000; deduplication) and three rules that
make about 10 million candidate pairs at a million records (last name and birthday,
first name and date of birth, date of birth and surname initial), in one run:

- **count**: the preview's distinct total and per-rule counts — ours
  (:func:`app.projects.blocking.counting.count_pairs`: keys coded per key, factorised in C)
  against main before issue 24 (``bench/_blocking_baseline.py``: a Python tuple per record
  and rule hashed into a dict);
- **list**: every pair with its first rule — ours (:func:`pair_arrays`, numpy joins)
  against the baseline's Python loop over pairs (at most ``--baseline-max`` pairs listed,
  the time scaled linearly above it and marked ``~``);
- **store** (ours only): :func:`create_pairs` on a project of those records, which reads
  them, counts, lists and writes the pairs in bulk (COPY on PostgreSQL with
  ``--postgres URL``, executemany on SQLite); the baseline's ``create_pairs`` refuses more
  than 100,000 pairs.

``--quick``: 20,000 records, seconds, stored on ``TEST_DATABASE_URL`` when set (as CI).
"""

from __future__ import annotations

import argparse
import itertools
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import _blocking_baseline as baseline  # noqa: E402
from _check import agree, finish, quick_postgres  # noqa: E402
from _kapr_setup import bench_app, project_spec  # noqa: E402

from app.core.disclosure import normalize  # noqa: E402
from app.datagen import generate  # noqa: E402
from app.extensions import db  # noqa: E402
from app.projects.blocking import parse_rules  # noqa: E402
from app.projects.blocking.counting import count_pairs  # noqa: E402
from app.projects.blocking.listing import pair_arrays  # noqa: E402

RULES = [
    'block_on("last_name", "month_day(dob)")',
    'block_on("first_name", "dob")',
    'block_on("dob", "substr(last_name, 1, 1)")',
]
TYPES = {"first_name": "string", "last_name": "string", "dob": "date"}


def _records(n: int) -> dict[int, dict]:
    """The generated records normalised as an import stores them (the store phase's)."""
    data = generate(n, n)
    return {
        i: {
            "first_name": normalize("string", data["first_name"][i]),
            "last_name": normalize("string", data["last_name"][i]),
            "dob": normalize("date", data["dob"][i]) if data["dob"][i] else None,
        }
        for i in range(n)
    }


def _timed(fn):
    started = time.perf_counter()
    value = fn()
    return value, time.perf_counter() - started


def _store(n: int, postgres: str | None) -> tuple[int, float]:
    from app.models import User
    from app.projects.blocking import create_pairs
    from app.projects.lifecycle import create_project

    with tempfile.TemporaryDirectory() as tmp, bench_app(Path(tmp), postgres) as app:
        app.config["BLOCKING_MAX_PAIRS"] = 50_000_000
        with app.app_context():
            owner = User(username="max", role="manager", password_hash="-")
            db.session.add(owner)
            db.session.flush()
            project = create_project(project_spec(n, 10, seed=n), owner)
            db.session.commit()
            made, seconds = _timed(lambda: create_pairs(project, RULES))
            db.session.commit()
    return made, seconds


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--records", type=int, default=1_000_000)
    parser.add_argument("--baseline-max", type=int, default=2_000_000)
    parser.add_argument("--postgres", help="store on PostgreSQL (a throwaway schema)")
    parser.add_argument("--no-store", action="store_true", help="skip the store phase")
    parser.add_argument("--quick", action="store_true", help="20,000 records")
    args = parser.parse_args(argv)
    n = 20_000 if args.quick else args.records
    records = _records(n)
    rules = parse_rules(RULES, TYPES)

    ours_count, t_ours_count = _timed(lambda: count_pairs(records, None, rules))
    base_total, t_base_count = _timed(lambda: baseline.count_pairs(records, None, rules))
    total = ours_count.total
    listed, t_ours_list = _timed(
        lambda: sum(len(a) for _, a, _ in pair_arrays(list(records.values()), None, rules))
    )
    cap = min(total, args.baseline_max)
    got, t_base_list = _timed(
        lambda: sum(1 for _ in itertools.islice(baseline._generate(records, None, rules), cap))
    )
    scaled = t_base_list * total / max(got, 1)
    mark = "~" if got < total else " "
    print(f"records {n:,}  candidate pairs {total:,} (per rule {ours_count.per_rule})")
    print(
        f"count  ours {t_ours_count:7.1f} s   baseline {t_base_count:7.1f} s   "
        f"baseline/ours {t_base_count / t_ours_count:5.1f}"
    )
    print(
        f"list   ours {t_ours_list:7.1f} s   baseline{mark}{scaled:7.1f} s   "
        f"baseline/ours {scaled / t_ours_list:5.1f}   ({listed / t_ours_list:,.0f} pairs/s)"
    )
    if not args.no_store:
        postgres = args.postgres or (quick_postgres() if args.quick else None)
        made, t_store = _store(n, postgres)
        agree(made == total, f"create_pairs stored {made:,} of {total:,} pairs")
        where = "PostgreSQL (COPY)" if postgres else "SQLite (executemany)"
        print(
            f"store  ours {t_store:7.1f} s   {made:,} pairs read, counted, listed and written "
            f"on {where} ({made / t_store:,.0f} pairs/s); baseline: refused above 100,000"
        )
    agree(base_total == total, f"count: baseline {base_total:,}, ours {total:,}")
    agree(listed == total, f"listed {listed:,} of {total:,} counted")
    return finish()


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
