"""Every benchmark starts, and its paths agree: each bench's ``--quick`` mode, as CI runs it.

Nothing here checks a time (the machine is shared). A bench exits with status 1 when two paths
it measures in the same run disagree (``bench/_check.py``: the fast path's answer against the
baseline's or the oracle's), so a bench that no longer starts, or whose fast path went wrong,
fails here instead of rotting until someone runs ``make bench``. The benches that need a
database use the suite's (``TEST_DATABASE_URL``, else SQLite).
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from bench.run_all import benches, main
from tests.forked import Launcher

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


@pytest.fixture(scope="session")
def launcher():
    """One process per pytest worker that imported the app once and forks each bench from it
    (:mod:`tests.forked`: the same run as ``python bench/NAME.py --quick``, without paying
    its imports each time)."""
    started = Launcher(ROOT)
    yield started
    started.close()


@pytest.mark.slow
@pytest.mark.parametrize("bench", [path.name for path in benches()])
def test_bench_runs_quick_and_its_paths_agree(bench, launcher, tmp_path, record_property):
    args = ["--quick"]
    postgres = os.environ.get("TEST_DATABASE_URL")
    if bench == "scale.py" and postgres:  # on PostgreSQL, beside SQLite (issue 39's ratios)
        args += ["--both", postgres]
    ran = launcher.run(ROOT / "bench" / bench, args, tmp_path / "output.txt", QUICK_SECONDS)
    record_property("cpu", ran.cpu)  # its process tree's CPU, for tests/timing.py
    assert ran.status == 0, (
        f"bench/{bench} --quick exited {ran.status} (None: still running after "
        f"{QUICK_SECONDS} s)\n--- output (end)\n{ran.output[-8000:]}"
    )
    if "--both" in args:  # both runs reached their last step, and the table came
        table = ran.output.split("PostgreSQL / SQLite")[-1]
        assert "=== PostgreSQL" in ran.output and "progress, all answered" in table


def test_the_launcher_reports_a_scripts_status_output_and_timeout(launcher, tmp_path):
    script = tmp_path / "script.py"
    script.write_text(
        "import sys, time\nprint('argv', sys.argv[1:])\n"
        "if sys.argv[1] == 'sleep': time.sleep(60)\nsys.exit(int(sys.argv[1]))\n"
    )
    passed = launcher.run(script, ["0"], tmp_path / "0.txt", 60)
    assert (passed.status, passed.output) == (0, "argv ['0']\n")
    assert launcher.run(script, ["3"], tmp_path / "3.txt", 60).status == 3
    assert launcher.run(script, ["x"], tmp_path / "x.txt", 60).status == 1  # ValueError
    assert "ValueError" in (tmp_path / "x.txt").read_text()
    assert launcher.run(script, ["sleep"], tmp_path / "s.txt", 0.5).status is None
