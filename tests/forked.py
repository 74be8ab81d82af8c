"""Run Python scripts as ``python script args…`` would, each in a fresh child process forked
from one that has imported the application once.

Every bench's ``--quick`` run (``tests/test_benches.py``) used to start an interpreter that
imported Flask, SQLAlchemy, pandas, pyarrow, DuckDB, Splink and the whole application before
its first line of work: 1-4 s of CPU per bench, about as much as the quick run itself. The
launcher is a process (``python -m tests.forked``) that imports all of that once and then, per
request on its standard input, forks a child that runs the script as ``__main__`` with its own
``argv``, working directory, output file and exit status, in a process group of its own. A
fork shares the imported modules (copy on write) and starts no thread first, so what a
script sees is what a new interpreter would give it, minus the imports' time.

The parent answers with the child's exit status and CPU (``wait4``: the child's and its own
children's, a bench's server or subprocess included), or kills the group at the timeout.
"""

from __future__ import annotations

import atexit
import contextlib
import importlib
import json
import os
import pkgutil
import runpy
import signal
import subprocess
import sys
import time
import traceback
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PRELOAD = (
    "numpy",
    "pandas",
    "pyarrow",
    "pyarrow.parquet",
    "duckdb",
    "sqlalchemy",
    "flask",
    "splink",
)


@dataclass(frozen=True)
class Ran:
    """A script's end: its exit status (negative: killed by that signal; None: timed out),
    the CPU seconds of its process tree, and what it printed (stdout and stderr together)."""

    status: int | None
    cpu: float
    output: str


class Launcher:
    """The client: one launcher process, one script at a time (a pytest worker runs its tests
    one after another)."""

    def __init__(self, cwd: Path = ROOT) -> None:
        self.process = subprocess.Popen(
            [sys.executable, "-m", "tests.forked"],
            cwd=cwd,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
        )
        if self.process.stdout.readline().strip() != "ready":
            raise RuntimeError("the launcher did not start")

    def run(self, script: Path, args: list[str], output: Path, timeout: float) -> Ran:
        request = {"script": str(script), "args": args, "output": str(output), "timeout": timeout}
        self.process.stdin.write(json.dumps(request) + "\n")
        self.process.stdin.flush()
        reply = self.process.stdout.readline()
        if not reply:
            raise RuntimeError(f"the launcher stopped (exit status {self.process.wait()})")
        answer = json.loads(reply)
        text = output.read_text(encoding="utf-8", errors="replace") if output.exists() else ""
        return Ran(answer["status"], answer["cpu"], text)

    def close(self) -> None:
        self.process.stdin.close()
        try:
            self.process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()
        self.process.stdout.close()


def _preload() -> None:
    """Import what the scripts import: the heavy libraries and every module of the app (not
    an app itself: making one starts nothing a script needs and could start a thread)."""
    import app

    names = [*PRELOAD, *(m.name for m in pkgutil.walk_packages(app.__path__, "app."))]
    for name in names:
        try:
            importlib.import_module(name)
        except Exception:  # noqa: BLE001, S112 (an optional extra: the script imports it itself)
            continue


def _child(request: dict) -> None:
    """In the forked child: run the script as ``python script args`` would; never returns."""
    status = 1
    try:
        os.setpgid(0, 0)  # a group of its own, so a timeout kills what it started too
        null = os.open(os.devnull, os.O_RDONLY)
        out = os.open(request["output"], os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        os.dup2(null, 0)
        os.dup2(out, 1)
        os.dup2(out, 2)
        sys.stdin = open(0, encoding="utf-8", closefd=False)  # noqa: SIM115
        sys.stdout = open(1, "w", encoding="utf-8", buffering=1, closefd=False)  # noqa: SIM115
        sys.stderr = open(2, "w", encoding="utf-8", buffering=1, closefd=False)  # noqa: SIM115
        script = request["script"]
        sys.argv = [script, *request["args"]]
        sys.path[0] = os.path.dirname(script)  # as the interpreter sets it for a script
        try:
            runpy.run_path(script, run_name="__main__")
            status = 0
        except SystemExit as done:
            code = done.code
            status = code if isinstance(code, int) else (0 if code is None else 1)
            if not isinstance(code, int | None):
                print(code, file=sys.stderr)
        except BaseException:  # noqa: BLE001 (reported as python would, exit status 1)
            traceback.print_exc()
            status = 1
        atexit._run_exitfuncs()  # the script's own (temporary folders, pools), as at exit
        sys.stdout.flush()
        sys.stderr.flush()
    finally:
        os._exit(status)


def _wait(pid: int, timeout: float) -> tuple[int | None, float]:
    deadline = time.monotonic() + timeout
    while True:
        done, status, usage = os.wait4(pid, os.WNOHANG)
        if done:
            return os.waitstatus_to_exitcode(status), usage.ru_utime + usage.ru_stime
        if time.monotonic() > deadline:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(pid, signal.SIGKILL)
            _, _, usage = os.wait4(pid, 0)
            return None, usage.ru_utime + usage.ru_stime
        time.sleep(0.02)


def serve() -> None:
    """The launcher's loop: a JSON request a line in, a JSON answer a line out."""
    _preload()
    answers = sys.stdout
    print("ready", file=answers, flush=True)
    for line in sys.stdin:
        request = json.loads(line)
        sys.stdout.flush()
        sys.stderr.flush()
        pid = os.fork()
        if pid == 0:
            _child(request)
        status, cpu = _wait(pid, request["timeout"])
        print(json.dumps({"status": status, "cpu": cpu}), file=answers, flush=True)


if __name__ == "__main__":
    serve()
