"""Benchmark a CSV import end to end: ``.venv/bin/python bench/import.py [--records N]``.

Generates ``--records`` synthetic people (:func:`app.datagen.write_csv`, default 1,000,000),
then, each in a fresh process on a throwaway SQLite database:

- **ours**: stage the file, validate it (:func:`check_upload`: every row, row-numbered
  errors) and import it (:func:`import_upload`: records and vault rows written chunk by
  chunk), then commit: what a manager's upload does;
- **baseline**: what the original MINDFIRL did, on a prefix of ``--baseline-max`` rows
  (scaled linearly above it, marked ``~``): read the whole file into Python dicts, then add
  one ORM object per record and vault row and commit.

Prints wall time, rows per second and the peak resident memory each process grew by, and
the ratios baseline / ours.
"""

from __future__ import annotations

import argparse
import csv
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from _kapr_setup import IDENTIFYING, SENSITIVE, bench_app  # noqa: E402

from app.datagen import write_csv  # noqa: E402
from app.extensions import db  # noqa: E402

COLUMNS = ["id", "cluster_id", *(name for name, _ in IDENTIFYING), *SENSITIVE]


def _status(field: str) -> int:
    with open("/proc/self/status") as fh:
        line = next(x for x in fh if x.startswith(field + ":"))
    return int(line.split()[1]) * 1024


def rss() -> int:
    """The process's resident set size now, in bytes (Linux)."""
    return _status("VmRSS")


def peak_rss() -> int:
    """The process's peak resident set size so far, in bytes (Linux)."""
    return _status("VmHWM")


def manager():
    """A manager without a password (scrypt's 32 MB would set the memory peak)."""
    from app.models import User

    owner = User(username="max", role="manager", password_hash="-")
    db.session.add(owner)
    db.session.commit()
    return owner


def plan() -> dict:
    return {
        "id_column": "id",
        "identifying": dict(IDENTIFYING),
        "sensitive": list(SENSITIVE),
        "header": COLUMNS,
        "settings": {"kappa": 1, "default_budget": 0.3, "page_size": 10},
        "on_duplicate_id": "error",
    }


def ours(path: Path, tmp: Path) -> dict:
    from werkzeug.datastructures import FileStorage

    from app.projects.importing import check_upload, import_upload, stage

    with bench_app(tmp) as app, app.app_context():
        app.config["UPLOAD_FOLDER"] = str(tmp / "uploads")
        owner = manager()
        before = rss()
        start = time.perf_counter()
        with path.open("rb") as fh:
            staged = stage("Import bench", "dedupe", {"A": FileStorage(fh, path.name)}, owner.id)
        checked = check_upload(staged, plan())
        import_upload(staged, plan(), owner)
        db.session.commit()
        seconds = time.perf_counter() - start
        return {"rows": checked.records["A"], "seconds": seconds, "peak": peak_rss() - before}


def baseline(path: Path, tmp: Path, limit: int) -> dict:
    from app.models import Project, ProjectAttribute, Record, Source, VaultRecord

    with bench_app(tmp) as app, app.app_context():
        owner = manager()
        before = rss()
        start = time.perf_counter()
        with path.open(newline="", encoding="utf-8") as fh:
            rows = [row for _, row in zip(range(limit), csv.DictReader(fh), strict=False)]
        project = Project(name="Baseline", kind="dedupe", owner_id=owner.id)
        project.attributes = [
            ProjectAttribute(position=i, name=name, kind=kind, identifying=True)
            for i, (name, kind) in enumerate(IDENTIFYING)
        ] + [
            ProjectAttribute(position=6 + i, name=name, kind="string", identifying=False)
            for i, name in enumerate(SENSITIVE)
        ]
        source = Source(label="A", record_count=len(rows))
        project.sources = [source]
        db.session.add(project)
        db.session.flush()
        for position, row in enumerate(rows):
            record = Record(
                project_id=project.id,
                source_id=source.id,
                external_id=row["id"],
                position=position,
                values={name: row[name] or None for name, _ in IDENTIFYING},
            )
            db.session.add(record)
            db.session.flush()  # the pseudonym joins the vault row
            db.session.add(
                VaultRecord(
                    pseudonym=record.pseudonym,
                    project_id=project.id,
                    values={name: row[name] for name in SENSITIVE},
                )
            )
        db.session.commit()
        seconds = time.perf_counter() - start
        return {"rows": len(rows), "seconds": seconds, "peak": peak_rss() - before}


def child(args) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        if args.phase == "ours":
            result = ours(Path(args.csv), Path(tmp))
        else:
            result = baseline(Path(args.csv), Path(tmp), args.baseline_max)
    print(json.dumps(result))


def run_phase(phase: str, path: Path, args) -> dict:
    command = [sys.executable, __file__, "--phase", phase, "--csv", str(path)]
    command += ["--baseline-max", str(args.baseline_max)]
    out = subprocess.run(command, check=True, capture_output=True, text=True).stdout
    return json.loads(out.strip().splitlines()[-1])


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--records", type=int, default=1_000_000)
    parser.add_argument("--baseline-max", type=int, default=100_000)
    parser.add_argument("--quick", action="store_true", help="50,000 records")
    parser.add_argument("--phase", choices=("ours", "baseline"), help=argparse.SUPPRESS)
    parser.add_argument("--csv", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.phase:
        return child(args)
    if args.quick:
        args.records, args.baseline_max = 50_000, 50_000
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "people.csv"
        write_csv(path, args.records, seed=1)
        size = path.stat().st_size / 2**20
        print(f"bench/import.py: {args.records:,} generated people ({size:.0f} MB CSV), SQLite")
        mine = run_phase("ours", path, args)
        base = run_phase("baseline", path, args)
    scale = args.records / base["rows"]
    approx = "~" if scale > 1 else ""
    base_seconds = base["seconds"] * scale
    for name, r, seconds, mark in (
        ("ours", mine, mine["seconds"], ""),
        ("baseline", base, base_seconds, approx),
    ):
        print(
            f"  {name:9} {mark}{seconds:8.1f} s  {args.records / seconds:10,.0f} rows/s"
            f"  peak RSS +{r['peak'] / 2**20:,.0f} MB over {r['rows']:,} rows"
        )
    print(f"  ratio     {approx}{base_seconds / mine['seconds']:.1f}x faster")
    if scale > 1:
        print(f"  ~ baseline measured on {base['rows']:,} rows and scaled to {args.records:,}")


if __name__ == "__main__":
    main()
