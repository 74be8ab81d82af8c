"""Bounded alignment against the full O(L^2) table it replaced, on the same strings, same run.

    .venv/bin/python bench/alignment.py [--quick]

Prints milliseconds per alignment and the ratio (full / bounded) for value pairs of growing
length: near pairs (a few edits, the banded table holds them exactly) and unrelated pairs
(past MAX_CELLS: the positional fallback). A near pair's bounded alignment must equal the
full table's (exit status 1 otherwise). The machine is shared: read the ratios, and the
load printed beside the absolute figures. ``--quick``: lengths up to 500 only.
"""

from __future__ import annotations

import os
import random
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from _check import agree, finish  # noqa: E402

from app.core.disclosure import align_bounded  # noqa: E402


def full(a: str, b: str):
    # no bound: the whole (len(a) + 1) x (len(b) + 1) table, as before the bound
    return align_bounded(a, b, max_cells=10**12)


def bounded(a: str, b: str):
    return align_bounded(a, b)


def timed(fn, a: str, b: str):
    started = time.perf_counter()
    found = fn(a, b)
    return (time.perf_counter() - started) * 1000, found


def main(argv: list[str]) -> int:
    rng = random.Random(1)
    lengths = (100, 500) if "--quick" in argv else (100, 500, 1000, 2000, 4000)
    print(f"load average {os.getloadavg()[0]:.2f}")
    print(f"{'length':>7} {'pair':>9} {'full ms':>9} {'bounded ms':>11} {'ratio':>7} {'cells':>12}")
    for length in lengths:
        a = "".join(rng.choice("ABCDEFGHIJ ") for _ in range(length))
        chars = list(a)
        for _ in range(max(2, length // 200)):
            chars[rng.randrange(length)] = "Z"
        pairs = {"near": "".join(chars), "unrelated": "".join(rng.choice("KLMNO") for _ in a)}
        for name, b in pairs.items():
            slow, whole = timed(full, a, b)
            fast, found = timed(bounded, a, b)
            cells = found.cells
            print(
                f"{length:>7} {name:>9} {slow:>9.1f} {fast:>11.1f} {slow / fast:>7.1f} {cells:>12,}"
            )
            if name == "near":  # the band holds the distance: the full table's alignment
                agree(found.exact and found.ops == whole.ops, f"near pair of {length}: ops")
    return finish()


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
