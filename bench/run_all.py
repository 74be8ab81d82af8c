"""Run the benches in ``bench/`` in turn: ``.venv/bin/python bench/run_all.py [--quick] [NAME…]``.

A bench is a ``*.py`` file here not starting with ``_`` (helpers) other than this one. Every
bench takes ``--quick`` (seconds, small sizes: what CI runs, ``tests/test_benches.py``);
without it each runs at its full sizes (``make bench``). Names (``scale scoring``: issue 24's
figures in one run) run those benches only. Exit status 1 when a bench fails: it did not
start, or two of its paths disagreed (``bench/_check.py``).
"""

from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent


def benches() -> list[Path]:
    """Every bench, by name."""
    return [
        path
        for path in sorted(HERE.glob("*.py"))
        if not path.name.startswith("_") and path.name != Path(__file__).name
    ]


def main(argv: list[str]) -> int:
    quick = "--quick" in argv
    names = [arg.removesuffix(".py") for arg in argv if not arg.startswith("-")]
    chosen = [b for b in benches() if not names or b.stem in names]
    unknown = sorted(set(names) - {b.stem for b in chosen})
    if unknown:
        print(
            f"no such bench: {', '.join(unknown)} (benches: {', '.join(b.stem for b in benches())})"
        )
        return 2
    failed = []
    for bench in chosen:
        args = [sys.executable, str(bench), *(["--quick"] if quick else [])]
        print(f"\n=== {bench.name} {' '.join(args[2:])}", flush=True)
        start = time.perf_counter()
        if subprocess.run(args, cwd=HERE.parent, check=False).returncode:
            failed.append(bench.name)
        print(f"=== {bench.name}: {time.perf_counter() - start:.0f} s", flush=True)
    if failed:
        print(f"failed: {', '.join(failed)}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
