"""The ``pair`` evidence model part of ``bench/kapr.py`` (issue 15, item 2).

Times ``page_costs`` of the first pages under the ``pair`` model with the count tables, the
same pages shown again, and the same first pages with the sorted-key count that came before
them (:func:`app.core.kapr.pair.reference.count_pair_reference`, the baseline, in the same run).
Every phase starts from an index without remembered counts, partner states or masks; within a
phase they accumulate page after page, as they do for a worker. It also times building the
tables on their own (they are built with the index). CPU time is reported beside wall time:
the machine is shared. The baseline's costs must equal the tables' on the same pages.

Not a bench itself (``run_all.py`` skips modules starting with ``_``).
"""

from __future__ import annotations

import time
from contextlib import contextmanager
from unittest import mock

import numpy as np
from _check import agree

from app.core.kapr import count_pair_reference
from app.core.kapr._pair_tables import PairTables
from app.core.kapr.pair import count as pair_anonymity
from app.extensions import db
from app.models import Assignment
from app.review.services import Context, page_costs, page_of, pair_states


def _forget(index) -> None:
    index.pair_counts.clear()
    index.pair_partners.clear()
    index.pair_masks.clear()


def _reference(row, partner, markers, side, index, partner_index, candidates, partner_cands):
    a = candidates() if callable(candidates) else candidates
    b = partner_cands() if callable(partner_cands) else partner_cands
    return count_pair_reference(row, partner, markers, side, index, partner_index, a, b)


@contextmanager
def baseline():
    """Count with the sorted-key path (remembering counts per index, as before the tables)."""
    with mock.patch.object(pair_anonymity, "_count_pair", _reference):
        yield


def _pages(assignment_id: int, pages: int, found: list | None = None) -> list[tuple[float, float]]:
    """(wall, CPU) seconds of ``page_costs`` under the ``pair`` model for pages 1..pages.

    The costs of each page are appended to ``found`` when given.
    """
    ctx = Context.of(db.session.get(Assignment, assignment_id))
    ctx.project.evidence_model = "pair"  # in memory only: rolled back below
    times = []
    for page in range(1, pages + 1):
        pairs, _ = page_of(ctx, page)
        states = pair_states(ctx, pairs)
        wall, cpu = time.perf_counter(), time.process_time()
        costs = page_costs(ctx, pairs, states)
        times.append((time.perf_counter() - wall, time.process_time() - cpu))
        if found is not None:
            found.append(costs)
    db.session.rollback()
    return times


def pair_phase(assignment_id: int, index, pages: int, baseline_pages: int) -> dict:
    """Time the ``pair`` model: tables (cold, again) and the sorted-key baseline (cold)."""
    start = time.process_time()
    tables = PairTables(index.columns, index.n)
    build = time.process_time() - start
    _forget(index)
    ours, theirs = [], []
    cold = _pages(assignment_id, pages, ours)
    again = _pages(assignment_id, pages)
    _forget(index)
    with baseline():
        base = _pages(assignment_id, baseline_pages, theirs)
    _forget(index)
    agree(ours[: len(theirs)] == theirs, f"pair model at {index.n:,}: tables against sorted keys")
    return {
        "pair_cold": cold,
        "pair_again": again,
        "pair_base": base,
        "pair_tables_build": build,
        "pair_tables_mb": tables.nbytes / 2**20,
        "pair_heavy": sorted(tables.heavy),
    }


def _pct(samples: list[tuple[float, float]], q: float, which: int = 0) -> float:
    return float(np.percentile([s[which] for s in samples], q)) if samples else float("nan")


def pair_report(r: dict) -> None:
    cold, base = r["pair_cold"], r["pair_base"]
    if not cold:
        return
    first, first_base = cold[0], base[0] if base else (float("nan"),) * 2
    print(
        f"  pair model page  p50 {_pct(cold, 50) * 1e3:8.1f} ms  p99 {_pct(cold, 99) * 1e3:8.1f} ms"
        f"  (CPU p50 {_pct(cold, 50, 1) * 1e3:.1f} ms; {len(cold)} pages, first time shown)"
    )
    print(
        f"    first page     {first[0] * 1e3:8.1f} ms (CPU {first[1] * 1e3:.1f} ms)"
        f"   baseline (sorted keys) {first_base[0]:.2f} s (CPU {first_base[1]:.2f} s)"
        f"   x{first_base[0] / first[0]:,.0f}"
    )
    print(
        f"    shown again    p50 {_pct(r['pair_again'], 50) * 1e3:8.1f} ms"
        f"   baseline pages p50 {_pct(base, 50):.2f} s ({len(base)} pages)"
    )
    print(
        f"    tables         {r['pair_tables_mb']:.1f} MB, built in {r['pair_tables_build']:.2f} s"
        f" CPU (part of the index build); heavy attributes {', '.join(r['pair_heavy'])}"
    )


def pair_row(r: dict) -> str:
    """A Markdown table row of the pair-model figures."""
    cold, base = r["pair_cold"], r["pair_base"]
    if not cold:
        return f"| {r['n']:,} | - | - | - | - | - | - |"
    b = base[0][0] if base else float("nan")
    return (
        f"| {r['n']:,} | {cold[0][0] * 1e3:.0f} ms | {_pct(cold, 50) * 1e3:.0f} / "
        f"{_pct(cold, 99) * 1e3:.0f} ms | {_pct(r['pair_again'], 50) * 1e3:.1f} ms | {b:.2f} s"
        f" | {b / cold[0][0]:,.0f}x"
        f" | {r['pair_tables_mb']:.1f} MB, {r['pair_tables_build']:.2f} s |"
    )


PAIR_HEADER = (
    "| records | pair first page | pair pages p50/p99 | shown again p50 | baseline first page"
    " | speed-up | tables (memory, build) |\n|---|---|---|---|---|---|---|"
)
