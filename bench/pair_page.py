"""Micro-bench of the ``pair`` evidence model's first page (issue 15, item 2), in memory.

Builds one source's :class:`AnonymityIndex` from generated records once (no database), takes
pages of 10 candidate pairs as ``bench/kapr.py`` does (half true clusters, half near misses),
optionally with random reveals, and times ``next_costs`` under the ``pair`` model per page,
with the index's remembered counts, partner states and masks emptied first. The count as it
was before this bench can be timed in the same run for a ratio (``--against REV``: this
bench run on REV's ``app/`` in a child process). CPU time (``time.process_time``). The pages'
costs must equal those counted with the sorted-key reference count (the oracle; on the first
page only unless ``--quick``): exit status 1 otherwise.

    .venv/bin/python bench/pair_page.py --records 1000000 --pages 3
    .venv/bin/python bench/pair_page.py --quick   # 3,000 records, 2 pages, 30 reveals, once
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from unittest import mock

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from bench._legacy import paths  # noqa: E402 (what an older revision's app/ imports)

sys.path += paths()

try:  # the rooms of issue 26
    from app.core.disclosure import AttributeType, normalize
    from app.core.kapr import AnonymityIndex, count_pair_reference, next_costs
    from app.review.grid import PairState
except ImportError:  # an older revision's app/ (--against): the flat modules
    from app.core.anonymity import AnonymityIndex  # noqa: I001 (modules gone from this tree)
    from app.core.attributes import AttributeType, normalize
    from app.core.kapr import next_costs
    from app.core.pair_reference import count_pair_reference
    from app.review.state import PairState
from app.datagen import generate  # noqa: E402
from bench._check import agree, finish  # noqa: E402
from bench._kapr_setup import IDENTIFYING, candidate_pairs  # noqa: E402


@dataclass(frozen=True)
class _Attr:
    name: str
    kind: str


def _forget(index: AnonymityIndex) -> None:
    index.pair_counts.clear()
    index.pair_partners.clear()
    index.pair_masks.clear()
    getattr(index.pair_tables, "kept", {}).clear()  # per-record counts (since pairpage4)


def _value(attr: _Attr, raw: str) -> str | None:
    return normalize(attr.kind, str(raw)) if raw else None


def _states(data, pairs, attrs, reveals: int, seed: int) -> list[PairState]:
    position = {rid: i for i, rid in enumerate(data["id"].tolist())}
    rng = np.random.default_rng(seed)
    states = []
    for number, (a, b) in enumerate(pairs):
        values = tuple(
            {x.name: _value(x, data[x.name][position[r]]) for x in attrs} for r in (a, b)
        )
        states.append(PairState(number, attrs, values))
    for _ in range(reveals):  # random reveals, one level up, as a worker's clicks
        state = states[rng.integers(len(states))]
        row, attr = int(rng.integers(2)), attrs[rng.integers(len(attrs))].name
        level = state.next_level(row, attr)
        if level is not None:
            state.levels[row, attr] = level
    return states


def page(states, index, n_rows: int) -> dict:
    def next_evidence(number, side, attribute):
        row = 0 if side == "left" else 1
        level = states[number].next_level(row, attribute)
        return None if level is None else states[number].evidence(row, attribute, level)

    views = [s.pair_view() for s in states]
    return next_costs(views, next_evidence, index, index, kappa=1, n_rows=n_rows,
                      n_attributes=len(IDENTIFYING), model="pair")  # fmt: skip


def run(index, pages, n_rows) -> list[float]:
    _forget(index)
    times = []
    for states in pages:
        cpu = time.process_time()
        page(states, index, n_rows)
        times.append(time.process_time() - cpu)
    return times


def _reference(row, partner, markers, side, index, partner_index, candidates, partner_cands):
    a = candidates() if callable(candidates) else candidates
    b = partner_cands() if callable(partner_cands) else partner_cands
    return count_pair_reference(row, partner, markers, side, index, partner_index, a, b)


def check_against_reference(index, pages, n_rows: int) -> None:
    """The pages' costs with the count tables equal those of the sorted-key reference count."""
    from app.core.kapr.pair import count

    _forget(index)
    fast = [page(states, index, n_rows) for states in pages]
    _forget(index)
    with mock.patch.object(count, "_count_pair", _reference):
        slow = [page(states, index, n_rows) for states in pages]
    _forget(index)
    agree(fast == slow, f"{len(pages)} page(s) of {n_rows:,} records: costs against the reference")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--records", type=int, default=100_000)
    parser.add_argument("--pages", type=int, default=3)
    parser.add_argument("--reveals", type=int, default=0, help="random reveals over the pages")
    parser.add_argument("--repeat", type=int, default=3, help="runs per code path (min kept)")
    parser.add_argument("--against", help="git revision whose code is the baseline")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--quick", action="store_true", help="3,000 records, 2 pages, once")
    parser.add_argument("--child", action="store_true", help=argparse.SUPPRESS)  # --against's
    args = parser.parse_args()
    if args.quick:
        args.records, args.pages, args.reveals, args.repeat = 3_000, 2, 30, 1
    data = generate(args.records, args.seed)
    attrs = [_Attr(a, t) for a, t in IDENTIFYING]
    kinds = {a: AttributeType(t) for a, t in IDENTIFYING}
    start = time.process_time()
    index = AnonymityIndex.build({a: data[a].tolist() for a in kinds}, kinds)
    index.pair_tables  # noqa: B018 (built with the index)
    print(f"index built in {time.process_time() - start:.1f} s CPU; load {os.getloadavg()}")
    pairs = candidate_pairs(data, 10 * args.pages, args.seed)
    states = _states(data, pairs, attrs, args.reveals, args.seed)
    pages = [states[i : i + 10] for i in range(0, len(states), 10)]
    runs = [run(index, pages, args.records) for _ in range(args.repeat)]
    best = [min(x) for x in zip(*runs, strict=True)]
    print("CPU ms per page (first time shown): " + "  ".join(f"{t * 1e3:.1f}" for t in best))
    if not args.child:
        check_against_reference(index, pages if args.quick else pages[:1], args.records)
    if args.against:
        base = _against(args)
        print(f"first page: baseline / ours = {base[0] / best[0]:.2f}x (CPU)")
    print(f"load {os.getloadavg()}")


def _against(args: argparse.Namespace) -> list[float]:
    """Run this bench with ``app/`` at ``revision`` in a child process; its page times."""
    root = Path(__file__).resolve().parent.parent
    revision = args.against
    with tempfile.TemporaryDirectory() as tmp:
        archive = subprocess.run(
            ["git", "archive", revision, "app"], cwd=root, check=True, capture_output=True
        ).stdout
        subprocess.run(["tar", "-x", "-C", tmp], input=archive, check=True)
        (Path(tmp) / "bench").mkdir()
        for name in ("__init__.py", "_check.py", "_kapr_setup.py", "pair_page.py"):
            if (root / "bench" / name).exists():
                shutil.copy(root / "bench" / name, Path(tmp) / "bench" / name)
        # what an older revision imports and this checkout no longer installs
        shutil.copytree(root / "bench" / "_legacy", Path(tmp) / "bench" / "_legacy")
        mine = ("against", "quick", "child")  # the child gets the sizes they stand for
        argv = [f"--{k}={v}" for k, v in vars(args).items() if k not in mine] + ["--child"]
        out = subprocess.run(
            [sys.executable, str(Path(tmp) / "bench" / "pair_page.py"), *argv],
            check=True, capture_output=True, text=True, cwd=root,
        ).stdout  # fmt: skip
    line = next(x for x in out.splitlines() if x.startswith("CPU ms per page"))
    print(f"baseline ({revision}) {line}")
    return [float(t) / 1e3 for t in line.split(":")[1].split()]


if __name__ == "__main__":
    main()
    sys.exit(finish())
