"""Same-run agreement of a bench, and what its ``--quick`` mode runs on.

A bench calls :func:`agree` for each value its fast path and its baseline (or oracle) both
compute, and ends with ``sys.exit(finish())``: exit status 1 when anything disagreed, in every
mode. Times are never checked (the machine is shared); ``tests/test_benches.py`` runs every
bench's ``--quick`` mode so a bench that no longer starts, or whose paths disagree, fails CI.

Not a bench itself (``run_all.py`` skips modules starting with ``_``).
"""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

DISAGREED: list[str] = []


def agree(ok: bool, what: str) -> bool:
    """Record ``what`` as a disagreement unless ``ok``; return ``ok``."""
    if not ok:
        DISAGREED.append(what)
        print(f"DISAGREE: {what}", flush=True)
    return bool(ok)


def finish() -> int:
    """The exit status: 0, or 1 after listing every disagreement."""
    if DISAGREED:
        print(f"\n{len(DISAGREED)} disagreement(s) between paths measured in this run:")
        for what in DISAGREED:
            print(f"  - {what}")
        return 1
    return 0


def quick_postgres() -> str | None:
    """The PostgreSQL a quick run uses: the test suite's (``TEST_DATABASE_URL``), else none.

    None means SQLite: CI runs the suite once on SQLite and once on PostgreSQL, and a quick
    bench follows it, so a machine without PostgreSQL still runs every bench.
    """
    return os.environ.get("TEST_DATABASE_URL") or None


def have_revision(revision: str) -> bool:
    """Whether this checkout holds ``revision`` (a shallow clone may not hold a baseline)."""
    root = Path(__file__).resolve().parents[1]
    found = subprocess.run(
        ["git", "cat-file", "-e", f"{revision}^{{commit}}"], cwd=root, capture_output=True
    )
    if found.returncode:
        print(f"baseline {revision} is not in this checkout: ours only (fetch it for a ratio)")
    return found.returncode == 0
