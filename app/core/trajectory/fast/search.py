"""Record linkage on the compiled kernels, in chunks any executor can run.

Same definitions and results as :func:`app.core.trajectory.linkage.record_linkage` and
:func:`app.core.trajectory.linkage.windowed_record_linkage` (the oracles), but each work unit is a
pure function of arrays: :func:`search_chunk` (a range of anonymized trajectories).
:func:`plan_search` splits the work; :func:`run` maps the chunks over any
``concurrent.futures.Executor`` (None: in the caller) and assembles the result. λ calibration,
chunked the same way, is in :mod:`.calibration`.

Windowed search: ρ is computed once per trajectory (by the oracle, so the rank windows are
exactly the reference's), each query then costs one kernel pass over its own window.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from concurrent.futures import Executor
from dataclasses import dataclass
from fractions import Fraction

import numpy as np

from app.core.trajectory.distances import (
    Martinez2021,
    MartinezCorrected,
    Pack,
    reference_point,
    robust_speed_kmh,
    speed_kmh,
)
from app.core.trajectory.fast import kernels
from app.core.trajectory.fast.flat import Flat
from app.core.trajectory.linkage import Link, LinkageResult, window_size
from app.core.trajectory.model import Trajectory
from app.core.trajectory.shape import EDR_EPS_M, EDR_TAU_S

__all__ = [
    "COMPILED",
    "SearchPlan",
    "compiled_distance",
    "fast_linkage",
    "plan_search",
    "run",
    "search_chunk",
    "window_bounds",
]

COMPILED = {
    "martinez2021": kernels.MARTINEZ,
    "corrected": kernels.MARTINEZ,
    "dtw": kernels.DTW,
    "frechet": kernels.FRECHET,
    "hausdorff": kernels.HAUSDORFF,
    "edr": kernels.EDR,
}
SEEDS = 8  # candidates nearest in ρ tried first by the exact search, for an early bound


def _speed(name: str) -> Callable[[Trajectory], float]:
    return robust_speed_kmh if name == "corrected" else speed_kmh


# ---- search ---------------------------------------------------------------------------------


@dataclass(frozen=True, eq=False)
class SearchPlan:
    """Everything a chunk needs: both flats, the candidate ranges and the seeds per query."""

    kind: int
    originals: Flat
    anonymized: Flat
    params: np.ndarray  # (λ, eps_m, tau_s)
    columns: np.ndarray  # original rows in candidate order
    starts: np.ndarray  # query q's candidates: columns[starts[q]:stops[q]]
    stops: np.ndarray
    seeds: np.ndarray  # (queries, SEEDS) positions within the range, −1 padded
    window: float | None


def window_bounds(sorted_rho: np.ndarray, x: np.ndarray, m: float):
    """Vectorised ``nearest_position`` + ``window_positions`` of :mod:`app.core.trajectory.linkage`.

    Returns ``(starts, stops, nearest)``: the rank window ``[start, stop)`` of each query and
    its nearest position, identical to the reference's bisect and shift rules.
    """
    n = len(sorted_rho)
    pos = np.searchsorted(sorted_rho, x, side="left")
    inner = (pos > 0) & (pos < n)
    p = np.clip(pos, 1, max(1, n - 1))
    hi_gap = sorted_rho[np.minimum(p, n - 1)] - x
    lo_gap = x - sorted_rho[p - 1]
    pos = np.where(inner & ~(hi_gap < lo_gap), pos - 1, pos)
    cut = int(m / 2)
    before = pos - cut + (1 if m % 2 == 0 else 0)
    after = pos + cut
    rest_before, rest_after = np.maximum(0, -before), np.maximum(0, after - (n - 1))
    before = np.maximum(0, before) - rest_after
    after = np.minimum(n - 1, after) + rest_before
    return np.maximum(0, before), np.minimum(n - 1, after) + 1, np.minimum(pos, n - 1)


def _rho(name: str, lam: float, flat: Flat, trajectories, ref: Trajectory) -> np.ndarray:
    if COMPILED[name] == kernels.MARTINEZ:  # the oracle, so windows are the reference's
        cls = MartinezCorrected if name == "corrected" else Martinez2021
        dist, pack = cls(lam), Pack(list(trajectories))
        pack._speeds[dist.speed] = flat.speed  # the same function's values: compute them once
        return dist.one_to_many(ref, pack)
    ref_flat = Flat.build([ref], _speed(name))
    out = np.full((1, len(flat)), np.nan)
    kernels.search_chunk(
        COMPILED[name], flat.arrays, flat.speed, ref_flat.arrays, ref_flat.speed,
        np.zeros(1, np.int64), np.arange(len(flat)), np.zeros(1, np.int64),
        np.array([len(flat)]), np.full((1, 1), -1, np.int64), _params(lam), out,
    )  # fmt: skip
    return out[0]


def compiled_distance(name: str, t1: Trajectory, t2: Trajectory, lam: float | None = None):
    """``D(t1, t2)`` with the compiled kernel of distance ``name`` (``t1`` as the original)."""
    plan = plan_search(name, [t1], [t2], lam) if COMPILED[name] != kernels.MARTINEZ else None
    if plan is None:  # no reference point, no seeds: one pair
        one, two = Flat.build([t1], _speed(name)), Flat.build([t2], _speed(name))
        plan = SearchPlan(
            kernels.MARTINEZ, one, two, _params(lam), np.zeros(1, np.int64),
            np.zeros(1, np.int64), np.ones(1, np.int64), np.full((1, SEEDS), -1, np.int64), None,
        )  # fmt: skip
    return search_chunk(plan, 0, 1)[0][0]


def _params(lam: float | None, eps_m: float = EDR_EPS_M, tau_s: float = EDR_TAU_S):
    return np.array([lam or 0.0, eps_m, tau_s], dtype=np.float64)


def plan_search(
    name: str,
    originals: Sequence[Trajectory],
    anonymized: Sequence[Trajectory],
    lam: float | None,
    *,
    windowed: bool = False,
    percent: float | None = None,
) -> SearchPlan:
    """Prepare an exact or windowed search with distance ``name`` (a key of :data:`COMPILED`)."""
    if not originals:
        raise ValueError("record linkage needs at least one original trajectory")
    if name not in COMPILED:
        raise ValueError(f"no compiled kernel for distance {name!r}")
    if COMPILED[name] == kernels.MARTINEZ and not lam:
        raise ValueError("the Martinez distances need λ")
    kind, speed = COMPILED[name], _speed(name)
    orig, anon = Flat.build(list(originals), speed), Flat.build(list(anonymized), speed)
    if len(set(orig.ids.tolist())) != len(orig):
        raise ValueError("original trajectory ids must be unique")
    n, q = len(orig), len(anon)
    seeds = np.full((q, SEEDS if kind == kernels.MARTINEZ else 0), -1, dtype=np.int64)
    if not windowed and kind != kernels.MARTINEZ:
        columns, starts, stops, m = np.arange(n), np.zeros(q, np.int64), np.full(q, n), None
        return SearchPlan(kind, orig, anon, _params(lam), columns, starts, stops, seeds, m)
    ref = reference_point(originals)
    rho = _rho(name, lam, orig, originals, ref)
    order = np.argsort(rho, kind="stable")
    anon_rho = _rho(name, lam, anon, anonymized, ref) if q else np.zeros(0)
    if windowed:
        m = window_size(n, percent)
        starts, stops, nearest = window_bounds(rho[order], anon_rho, m)
        columns = order
        if seeds.shape[1]:
            seeds[:, 0] = nearest - starts
    else:  # exact: all originals in id order, the ρ-nearest ones first
        m, columns = None, np.arange(n)
        starts, stops = np.zeros(q, np.int64), np.full(q, n, dtype=np.int64)
        _, _, nearest = window_bounds(rho[order], anon_rho, 1.0)
        offsets = np.arange(SEEDS) - SEEDS // 2
        seeds[:] = order[np.clip(nearest[:, None] + offsets[None, :], 0, n - 1)]
    return SearchPlan(kind, orig, anon, _params(lam), columns, starts, stops, seeds, m)


def search_chunk(plan: SearchPlan, lo: int, hi: int) -> list[tuple[float, list[int], int]]:
    """For queries lo..hi−1: (minimum distance, original rows at it, number of candidates)."""
    counts = plan.stops[lo:hi] - plan.starts[lo:hi]
    out = np.full((hi - lo, int(counts.max(initial=0))), np.nan)
    kernels.search_chunk(
        plan.kind, plan.originals.arrays, plan.originals.speed, plan.anonymized.arrays,
        plan.anonymized.speed, np.arange(lo, hi), plan.columns, plan.starts[lo:hi],
        plan.stops[lo:hi], plan.seeds[lo:hi], plan.params, out,
    )  # fmt: skip
    found = []
    for k in range(hi - lo):
        row = out[k, : counts[k]]
        best = float(row.min())
        where = np.flatnonzero(row == best) + plan.starts[lo + k]
        found.append((best, plan.columns[where].tolist(), int(counts[k])))
    return found


def finish_search(plan: SearchPlan, found) -> LinkageResult:
    """Links and RL from the chunks' findings, in the anonymized trajectories' order."""
    row_of = {int(tid): row for row, tid in enumerate(plan.originals.ids)}
    rank = np.empty(len(plan.columns), dtype=np.int64)
    rank[plan.columns] = np.arange(len(plan.columns))
    links = []
    for q, (best, rows, candidates) in enumerate(found):
        tid = int(plan.anonymized.ids[q])
        true_row = row_of.get(tid)
        inside = true_row is not None and plan.starts[q] <= rank[true_row] < plan.stops[q]
        hit = true_row is not None and true_row in rows
        links.append(
            Link(
                tid,
                tuple(int(plan.originals.ids[r]) for r in rows),
                best,
                Fraction(1, len(rows)) if hit else Fraction(0),
                candidates,
                bool(inside),
            )
        )
    n = len(plan.originals)
    risk = sum((link.probability for link in links), Fraction(0)) / n
    return LinkageResult(risk, n, len(links), plan.window, tuple(links))


def query_chunks(plan: SearchPlan, size: int) -> list[tuple[int, int]]:
    """Ranges of at most ``size`` anonymized trajectories."""
    q = len(plan.anonymized)
    return [(lo, min(q, lo + size)) for lo in range(0, q, max(1, size))]


def run(executor: Executor | None, fn, calls: list[tuple]) -> list:
    """``[fn(*args) for args in calls]``, on ``executor`` when given (results in order)."""
    if executor is None:
        return [fn(*args) for args in calls]
    futures = [executor.submit(fn, *args) for args in calls]
    return [f.result() for f in futures]


def fast_linkage(
    name, originals, anonymized, lam, *, windowed=False, percent=None, executor=None, size=256
) -> LinkageResult:
    """Exact or windowed RL with a compiled distance; same result as the plain functions."""
    plan = plan_search(name, originals, anonymized, lam, windowed=windowed, percent=percent)
    parts = run(executor, search_chunk, [(plan, lo, hi) for lo, hi in query_chunks(plan, size)])
    return finish_search(plan, [x for part in parts for x in part])
