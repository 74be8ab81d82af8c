"""Every benchmark starts, and its paths agree: each bench's ``--quick`` mode, as CI runs it.

Nothing here checks a time (the machine is shared). A bench exits with status 1 when two paths
it measures in the same run disagree (``bench/_check.py``: the fast path's answer against the
baseline's or the oracle's), so a bench that no longer starts, or whose fast path went wrong,
fails here instead of rotting until someone runs ``make bench``. The benches that need a
database use the suite's (``TEST_DATABASE_URL``, else SQLite).
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from bench.run_all import benches, main

ROOT = Path(__file__).resolve().parents[1]

QUICK_SECONDS = 600  # a bound for a hung bench on a loaded machine, not a speed check


def test_make_bench_runs_every_bench():
    names = {path.name for path in benches()}
    assert {"kapr.py", "trajectory.py", "load.py", "import.py"} <= names
    assert not {name for name in names if name.startswith("_")} and "run_all.py" not in names


def test_run_all_refuses_a_bench_that_is_not_there_and_runs_nothing(capsys):
    assert main(["--quick", "scale", "scorng"]) == 2
    out = capsys.readouterr().out
    assert "no such bench: scorng" in out and "scoring" in out and "===" not in out


@pytest.mark.slow
@pytest.mark.parametrize("bench", [path.name for path in benches()])
def test_bench_runs_quick_and_its_paths_agree(bench):
    done = subprocess.run(
        [sys.executable, str(ROOT / "bench" / bench), "--quick"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=QUICK_SECONDS,
        check=False,
    )
    assert done.returncode == 0, (
        f"bench/{bench} --quick exited {done.returncode}\n"
        f"--- stdout (end)\n{done.stdout[-4000:]}\n--- stderr (end)\n{done.stderr[-4000:]}"
    )
