"""``flask --app app analytics rl`` end to end from a fresh clone, against a baseline revision.

    .venv/bin/python bench/rl_command.py [--trajectories 2082] [--against REV] [--against-venv V]

Writes ``--trajectories`` seeded random walks (``bench/trajectory.py``'s: 50 points, ~500 m of
noise and ±5 min in the anonymized file) as the two CSV files, then for this checkout's HEAD
and for the ``--against`` revision (default 981dcb2: main before issue 39) makes a **fresh
clone** (``git clone``: no ``__pycache__``, no numba cache; ``.venv`` linked to this
interpreter's) and times, as a user would type it, ``.venv/bin/flask --app app analytics rl
--original A.csv --anonymized B.csv --json`` (exact search, λ calibrated), process start
included (``--against-venv``: the baseline's own virtualenv, for a revision whose requirements
differ from this one's):

1. **cold**: the clone's first command, with whatever it compiles;
2. in a second fresh clone of HEAD, the **install step** that ``make run`` and ``make test``
   run once per checkout (``analytics compile-kernels``), then the first command (**first**);
3. ``--runs`` more commands in each clone (**warm**, the median and the best).

Prints wall and CPU seconds (the children's user + system) of each, the baseline / ours ratios
per column and ``295 s`` (the reference implementation on 2,082 trajectories, issue 39) /
ours. Both trees must report the same RL (exit status 1 otherwise). ``--quick``: 120
trajectories, one warm run, HEAD only unless ``--against`` is given.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

from _check import agree, finish, have_revision  # noqa: E402
from _legacy import paths as legacy_paths  # noqa: E402

REFERENCE_SECONDS = 295.0  # the reference implementation, 2,082 trajectories (issue 39)
BASELINE = "981dcb2"


def write_files(folder: Path, n: int) -> tuple[Path, Path]:
    from trajectory import generate

    from app.core.trajectory.model import format_timestamp

    paths = folder / "original.csv", folder / "anonymized.csv"
    for path, trajectories in zip(paths, generate(n, 50), strict=True):
        lines = ["lon,lat,timestamp,trajectory_id,user_id"]
        for t in trajectories:
            lines += [
                f"{float(x)!r},{float(y)!r},{format_timestamp(s)},{t.id},{t.user_id}"
                for s, x, y in zip(t.t, t.lon, t.lat, strict=True)
            ]
        path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return paths


def clone(revision: str, where: Path, venv: Path | None = None) -> Path:
    subprocess.run(["git", "clone", "--quiet", str(ROOT), str(where)], check=True)
    subprocess.run(["git", "-C", str(where), "checkout", "--quiet", revision], check=True)
    (where / ".venv").symlink_to(venv or Path(sys.prefix))  # by default this interpreter's
    return where


def timed(tree: Path, *args: str, path: Sequence[str] = ()) -> tuple[float, float, str]:
    """Wall and CPU seconds of ``.venv/bin/flask --app app ARGS`` in ``tree``, and its stdout
    (``path``: folders put on its ``sys.path``)."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("NUMBA_", "JOBS_"))}
    if path:
        env["PYTHONPATH"] = os.pathsep.join(path)
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    done = subprocess.run(
        [str(tree / ".venv" / "bin" / "flask"), "--app", "app", *args],
        cwd=tree, env=env, capture_output=True, text=True, check=False,
    )  # fmt: skip
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    if done.returncode:
        raise SystemExit(f"{tree.name}: flask {' '.join(args)} failed:\n{done.stderr[-2000:]}")
    return wall, cpu, done.stdout


def measure(
    tree: Path, files: tuple[Path, Path], runs: int, install: bool, path: Sequence[str] = ()
) -> dict:
    rl = ["analytics", "rl", "--original", str(files[0]), "--anonymized", str(files[1]), "--json"]
    out = {}
    if install:
        out["install"] = timed(tree, "analytics", "compile-kernels", path=path)[:2]
    wall, cpu, text = timed(tree, *rl, path=path)
    out["first" if install else "cold"] = (wall, cpu)
    out["rl"] = json.loads(text.strip().splitlines()[-1])["rl_exact"]
    warm = [timed(tree, *rl, path=path)[:2] for _ in range(runs)]
    if warm:
        out["warm"] = (statistics.median(w for w, _ in warm), statistics.median(c for _, c in warm))
        out["best"] = min(warm)
    return out


def report(n: int, rows: dict[str, dict]) -> None:
    print(f"\n## flask --app app analytics rl, {n:,} trajectories x 50 points, exact, λ calibrated")
    print(f"{'tree':<34}{'step':<10}{'wall s':>9}{'CPU s':>9}{'vs ours':>10}{'295 s /':>10}")
    ours = rows.get("ours, installed") or rows["ours, no install"]
    for name, row in rows.items():
        for step in ("install", "cold", "first", "warm", "best"):
            if step not in row:
                continue
            wall, cpu = row[step]
            mine = ours.get(step) or ours.get("first")
            ratio = f"{wall / mine[0]:>9.1f}x" if "baseline" in name and step != "install" else ""
            ref = f"{REFERENCE_SECONDS / wall:>9.0f}x" if step != "install" else ""
            print(f"{name:<34}{step:<10}{wall:>9.2f}{cpu:>9.2f}{ratio:>10}{ref:>10}")
    results = [f"{name} {row['rl']}" for name, row in rows.items()]
    print("RL: " + ", ".join(results))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--trajectories", type=int, default=2082)
    parser.add_argument("--against", default=None, help=f"baseline revision ({BASELINE})")
    parser.add_argument(
        "--against-venv",
        type=Path,
        default=None,
        help="virtualenv of the baseline revision when its requirements differ: default this "
        "interpreter's, with bench/_legacy's stand-ins (before abc3cf5 it imports Flask-Limiter)",
    )
    parser.add_argument("--runs", type=int, default=3, help="warm commands per tree")
    parser.add_argument("--quick", action="store_true", help="120 trajectories, HEAD only")
    args = parser.parse_args()
    n = 120 if args.quick else args.trajectories
    runs = 1 if args.quick else args.runs
    against = args.against or (None if args.quick else BASELINE)
    head = subprocess.run(
        ["git", "-C", str(ROOT), "rev-parse", "HEAD"], capture_output=True, text=True, check=True
    ).stdout.strip()
    print(f"HEAD {head[:10]}; load {os.getloadavg()[0]:.2f}; {os.cpu_count()} cores")
    with tempfile.TemporaryDirectory(prefix="rl-command-") as tmp:
        folder = Path(tmp)
        files = write_files(folder, n)
        rows = {"ours, no install": measure(clone(head, folder / "ours-cold"), files, 0, False)}
        rows["ours, installed"] = measure(clone(head, folder / "ours"), files, runs, True)
        if against and have_revision(against):
            # an older revision in this virtualenv imports what it no longer installs
            stand_ins = [] if args.against_venv else legacy_paths()
            rows[f"baseline {against}"] = measure(
                clone(against, folder / "base", args.against_venv), files, runs, False, stand_ins
            )
        report(n, rows)
    results = {row["rl"] for row in rows.values()}
    agree(len(results) == 1, f"RL of every tree and step ({', '.join(sorted(results))})")


if __name__ == "__main__":
    main()
    sys.exit(finish())
