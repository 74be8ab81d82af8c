"""Where the suite's time goes: per test and phase, wall and CPU, summed by family.

``TEST_TIMES=/tmp/times make test`` (or any pytest run) writes one JSON line per test into
``/tmp/times.<engine>.<worker>.jsonl``: its set-up, call and teardown, each as wall seconds, this
process's CPU seconds and the CPU of child processes reaped meanwhile (a bench's subprocess,
a Spark JVM, a bench forked by ``tests/forked.py``; the browser's is reaped when its
session closes). Then

    .venv/bin/python -m tests.timing /tmp/times [sqlite|postgresql]

prints the families of ``docs/testing.md``. CPU is what a loaded machine does not inflate;
wall is what the run waits for.
"""

from __future__ import annotations

import glob
import json
import os
import resource
import sys
import time
from collections import defaultdict
from pathlib import Path

import pytest

# A test's family: the first rule that matches its node id (hypothesis tests are a family of
# their own whatever their folder, set-up and teardown one of every test).
FAMILIES = (
    ("browser (tests/e2e)", ("tests/e2e/",)),
    ("benches' quick mode", ("tests/test_benches.py",)),
    (
        "Splink and Spark",
        (
            "tests/projects/scoring/",
            "tests/projects/triage/test_febrl_splink.py",
            "tests/projects/exports/test_peer_exports.py",
            "tests/cli/test_triage_cli.py",
        ),
    ),  # fmt: skip
    (
        "OpenAPI fuzzing and body schemas",
        ("tests/api/test_openapi_fuzz.py", "tests/api/test_body_schemas.py"),
    ),  # fmt: skip
    ("migrations", ("tests/models/test_migrations.py",)),
)


def _clock() -> tuple[float, float, float]:
    children = resource.getrusage(resource.RUSAGE_CHILDREN)
    return time.perf_counter(), time.process_time(), children.ru_utime + children.ru_stime


class Recorder:
    """The pytest plugin: one line per test, written as its teardown ends."""

    def __init__(self, stem: str) -> None:
        worker = os.environ.get("PYTEST_XDIST_WORKER", "main")
        engine = "postgresql" if os.environ.get("TEST_DATABASE_URL") else "sqlite"
        self.out = open(f"{stem}.{engine}.{worker}.jsonl", "a", encoding="utf-8")  # noqa: SIM115
        self.phases: dict[str, dict] = defaultdict(dict)

    def _timed(self, item, phase: str):
        began = _clock()
        yield
        ended = _clock()
        self.phases[item.nodeid][phase] = [b - a for a, b in zip(began, ended, strict=True)]

    @pytest.hookimpl(hookwrapper=True)
    def pytest_runtest_setup(self, item):
        yield from self._timed(item, "setup")

    @pytest.hookimpl(hookwrapper=True)
    def pytest_runtest_call(self, item):
        yield from self._timed(item, "call")

    @pytest.hookimpl(hookwrapper=True)
    def pytest_runtest_teardown(self, item, nextitem):
        yield from self._timed(item, "teardown")
        hypothesis = bool(getattr(getattr(item, "obj", None), "is_hypothesis_test", False))
        line = {"id": item.nodeid, "hypothesis": hypothesis, **self.phases.pop(item.nodeid)}
        # a process not this one's child (a bench forked by tests/forked.py) reports its CPU
        elsewhere = sum(value for key, value in item.user_properties if key == "cpu")
        if elsewhere and "call" in line:
            line["call"][2] += elsewhere
        self.out.write(json.dumps(line) + "\n")
        self.out.flush()


def family(line: dict) -> str:
    if line.get("hypothesis"):
        return "hypothesis (property tests)"
    for name, prefixes in FAMILIES:
        if line["id"].startswith(prefixes):
            return name
    return "everything else"


def summary(stem: str, engine: str = "*") -> str:
    """A Markdown table: per family, tests, wall and CPU of their calls; then every test's
    set-up and teardown (fixtures: databases, apps, users) as a row of their own. ``engine``:
    ``sqlite`` or ``postgresql`` (the two runs of ``.ci/run`` write beside each other)."""
    lines = [
        json.loads(row)
        for path in glob.glob(f"{stem}.{engine}.*.jsonl")
        for row in Path(path).read_text(encoding="utf-8").splitlines()
    ]
    rows: dict[str, list[float]] = defaultdict(lambda: [0, 0.0, 0.0])
    for line in lines:
        own = rows[family(line)]
        for phase in ("setup", "call", "teardown"):
            wall, cpu, child = line.get(phase, (0.0, 0.0, 0.0))
            row = own if phase == "call" else rows["set-up and teardown (fixtures)"]
            row[1] += wall
            row[2] += cpu
            # what a fixture started is reaped in a teardown (the browser at the end of the
            # session): its CPU is the family's whose test ran then
            own[2] += child
        own[0] += 1
    out = ["| family | tests | wall, s | CPU, s |", "|---|---:|---:|---:|"]
    for name, (count, wall, cpu) in sorted(rows.items(), key=lambda kv: -kv[1][2]):
        out.append(f"| {name} | {count or ''} | {wall:,.0f} | {cpu:,.0f} |")
    total_wall = sum(r[1] for r in rows.values())
    total_cpu = sum(r[2] for r in rows.values())
    out.append(f"| **all** | {len(lines)} | {total_wall:,.0f} | {total_cpu:,.0f} |")
    return "\n".join(out)


if __name__ == "__main__":
    print(summary(*sys.argv[1:3]))
