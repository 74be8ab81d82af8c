"""Benchmark a CSV import end to end: ``.venv/bin/python bench/import.py [--records N]``.

Generates ``--records`` synthetic people (:func:`app.datagen.write_csv`, default 1,000,000),
then, each in a fresh process on a throwaway SQLite database:

- **ours**: what a manager's upload does: stage the file, submit the mapping (one pass:
  every row validated while records and vault rows are written batch by batch into a
  project waiting for confirmation; a job above ``IMPORT_JOB_THRESHOLD`` rows, run inline
  here, committing batch by batch as it does), then confirm (publish it) and commit;
- **baseline**: main's path before the one pass (``bench/_import_baseline.py``): the mapping
  step's separate check of every row, then the import reading the file again, on the same
  file, run on the application code of ``--baseline-rev`` (exported with ``git archive``);
- **mindfirl** (only with ``--mindfirl``): what the original MINDFIRL did, on a prefix of
  ``--baseline-max`` rows (scaled linearly above it, marked ``~``): read the whole file
  into Python dicts, then add one ORM object per record and vault row and commit.

Prints wall and CPU time, rows per second, the peak resident memory each process grew by,
and the ratios baseline / ours (wall and CPU) measured in this run. Every path must import
every row (exit status 1 otherwise). ``--quick``: 2,000 records.
"""

from __future__ import annotations

import argparse
import csv
import io
import json
import subprocess
import sys
import tarfile
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
BASELINE_REV = "484cde2"  # main before the one-pass import (issue 15 item 3)
if "--app-root" in sys.argv:  # the baseline's application code, ahead of this checkout's
    from _legacy import paths  # what that code imports and this checkout no longer installs

    sys.path[:0] = [sys.argv[sys.argv.index("--app-root") + 1], str(ROOT), *paths()]
else:
    sys.path.insert(0, str(ROOT))

from _check import agree, finish, have_revision  # noqa: E402
from _kapr_setup import IDENTIFYING, SENSITIVE, bench_app  # noqa: E402

from app.datagen import write_csv  # noqa: E402
from app.extensions import db  # noqa: E402

PHASES = ("ours", "baseline", "mindfirl")
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


def one_pass(staged, plan: dict, owner) -> int:
    """The mapping step and the confirmation, as the views run them; the rows imported."""
    from app.projects.importing import (
        check_and_write,
        discard,
        discard_pending,
        load,
        needs_job,
        publish,
        remember,
        submit_check,
    )

    discard_pending(staged)
    db.session.commit()
    staged.meta["plan"] = plan
    if needs_job(staged):
        remember(staged, None, None)
        submit_check(staged, owner)
        staged = load(staged.token, owner.id)
    else:
        project, checked = check_and_write(staged, plan, owner)
        remember(staged, project, checked)
        db.session.commit()
    rows = sum(staged.meta["checked"]["records"].values())
    publish(staged)
    db.session.commit()
    discard(staged)
    return rows


def _imported(rows: int) -> None:
    """Fail loudly unless one ready project holds ``rows`` records (a failed job is silent)."""
    from sqlalchemy import func, select

    from app.models import Project, Record

    assert db.session.scalars(select(Project.state)).all() == ["ready"]
    assert db.session.scalar(select(func.count(Record.id))) == rows


def ours(path: Path, tmp: Path, *, baseline: bool = False) -> dict:
    from werkzeug.datastructures import FileStorage

    from app.projects.importing import stage

    if baseline:
        from _import_baseline import main_path as path_of
    else:
        path_of = one_pass
    with bench_app(tmp) as app, app.app_context():
        app.config["UPLOAD_FOLDER"] = str(tmp / "uploads")
        app.config["JOBS_EXECUTOR"] = "inline"  # the job runs here: its CPU is counted
        owner = manager()
        before = rss()
        start, cpu = time.perf_counter(), time.process_time()
        with path.open("rb") as fh:
            staged = stage("Import bench", "dedupe", {"A": FileStorage(fh, path.name)}, owner.id)
        rows = path_of(staged, plan(), owner)
        seconds, cpu = time.perf_counter() - start, time.process_time() - cpu
        _imported(rows)
        return {"rows": rows, "seconds": seconds, "cpu": cpu, "peak": peak_rss() - before}


def mindfirl(path: Path, tmp: Path, limit: int) -> dict:
    from app.models import Project, ProjectAttribute, Record, Source, VaultRecord

    with bench_app(tmp) as app, app.app_context():
        owner = manager()
        before = rss()
        start, cpu = time.perf_counter(), time.process_time()
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
        seconds, cpu = time.perf_counter() - start, time.process_time() - cpu
        return {"rows": len(rows), "seconds": seconds, "cpu": cpu, "peak": peak_rss() - before}


def child(args) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        if args.phase == "ours":
            result = ours(Path(args.csv), Path(tmp))
        elif args.phase == "baseline":
            result = ours(Path(args.csv), Path(tmp), baseline=True)
        else:
            result = mindfirl(Path(args.csv), Path(tmp), args.baseline_max)
    print(json.dumps(result))


def export(rev: str, into: Path) -> Path:
    """The application code of ``rev`` (``app/``, templates, static) under ``into``."""
    archive = subprocess.run(
        ["git", "archive", "--format=tar", rev, "app", "templates", "static", "config.py"],
        cwd=ROOT, check=True, capture_output=True,
    ).stdout  # fmt: skip
    into.mkdir()
    with tarfile.open(fileobj=io.BytesIO(archive)) as tar:
        tar.extractall(into, filter="data")
    return into


def run_phase(phase: str, path: Path, args, app_root: Path | None = None) -> dict:
    command = [sys.executable, __file__, "--phase", phase, "--csv", str(path)]
    command += ["--baseline-max", str(args.baseline_max)]
    if app_root is not None:
        command += ["--app-root", str(app_root)]
    out = subprocess.run(command, check=True, capture_output=True, text=True).stdout
    return json.loads(out.strip().splitlines()[-1])


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--records", type=int, default=1_000_000)
    parser.add_argument("--baseline-max", type=int, default=100_000, help="MINDFIRL's rows")
    parser.add_argument("--mindfirl", action="store_true", help="also time MINDFIRL's ORM path")
    parser.add_argument("--quick", action="store_true", help="2,000 records")
    parser.add_argument("--baseline-rev", default=BASELINE_REV, help="the baseline's code")
    parser.add_argument("--phase", choices=PHASES, help=argparse.SUPPRESS)
    parser.add_argument("--app-root", help=argparse.SUPPRESS)
    parser.add_argument("--csv", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.phase:
        return child(args)
    if args.quick:
        args.records, args.baseline_max = 2_000, 2_000
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "people.csv"
        write_csv(path, args.records, seed=1)
        size = path.stat().st_size / 2**20
        print(
            f"bench/import.py: {args.records:,} generated people ({size:.0f} MB CSV), SQLite;"
            f" baseline on {args.baseline_rev}"
        )
        phases = PHASES if args.mindfirl else PHASES[:2]
        if not have_revision(args.baseline_rev):
            phases = [p for p in phases if p != "baseline"]
        old = export(args.baseline_rev, Path(tmp) / "baseline") if "baseline" in phases else None
        results = {
            phase: run_phase(phase, path, args, old if phase == "baseline" else None)
            for phase in phases
        }
    mine = results["ours"]
    for name, r in results.items():
        asked = min(args.records, args.baseline_max) if name == "mindfirl" else args.records
        agree(r["rows"] == asked, f"{name}: {asked:,} rows imported")
        scale = args.records / r["rows"]
        mark = "~" if scale > 1 else " "
        seconds, cpu = r["seconds"] * scale, r["cpu"] * scale
        print(
            f"  {name:9} {mark}{seconds:8.1f} s wall {cpu:8.1f} s CPU"
            f"  {args.records / seconds:10,.0f} rows/s"
            f"  peak RSS +{r['peak'] / 2**20:,.0f} MB over {r['rows']:,} rows"
        )
        if name != "ours":
            print(
                f"  ratio     {mark}{seconds / mine['seconds']:.2f}x wall"
                f" {cpu / mine['cpu']:.2f}x CPU ({name} / ours)"
            )
        if scale > 1:
            print(f"  ~ {name} measured on {r['rows']:,} rows and scaled to {args.records:,}")


if __name__ == "__main__":
    main()
    sys.exit(finish())
