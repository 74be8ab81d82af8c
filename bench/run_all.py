"""Run every bench in ``bench/`` in turn: ``.venv/bin/python bench/run_all.py [--quick]``.

A bench is a ``*.py`` file here not starting with ``_`` (helpers) other than this one.
``--quick`` is passed to the benches that accept it; the others run in full.
"""

from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent


def main(argv: list[str]) -> int:
    quick = "--quick" in argv
    failed = []
    for bench in sorted(HERE.glob("*.py")):
        if bench.name.startswith("_") or bench.name == Path(__file__).name:
            continue
        args = [sys.executable, str(bench)]
        if quick and "--quick" in bench.read_text(encoding="utf-8"):
            args.append("--quick")
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
