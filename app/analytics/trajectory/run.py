"""Run a trajectory record-linkage report in chunks: λ calibration, searches, sweeps, ensembles.

Every heavy pass goes through :func:`app.jobs.chunk_map`, so a job run on Dask spreads its
chunks over the cluster, reports chunks done/total and stops on a cancel; from the CLI or a
test the same code runs in the caller. Distances with a compiled kernel
(:data:`app.core.trajectory.fast.search.COMPILED`) take the chunked path; the synchronized
distance keeps the plain search. Chunk functions live in :mod:`app.core.trajectory` (bar the
plain one), so Dask workers import no Flask code. The compiled kernels (numba) are imported by
the first report, not with the app.
"""

from __future__ import annotations

import math
import time
from fractions import Fraction

import numpy as np

from app.core.trajectory.distances import Calibration
from app.core.trajectory.linkage import LinkageResult, record_linkage, windowed_record_linkage
from app.core.trajectory.shape import synchronized_haversine
from app.jobs import chunk_map

PROGRESS_STEPS = 50  # chunks per search pass (fewer when there are fewer trajectories)
CALIBRATION_CHUNKS = 16
SWEEP_PERCENTS = (1.0, 2.0, 5.0, 10.0, 20.0, 50.0, 100.0)
ENSEMBLE = ("martinez2021", "corrected", "dtw", "frechet", "hausdorff", "edr")


def calibrate(progress, originals, corrected: bool, total: int) -> Calibration:
    """λ and max_dist over the originals, in chunks (progress stays at 0 of ``total``)."""
    from app.core.trajectory.fast import calibration_part, finish_calibration, plan_calibration

    flat, ranges = plan_calibration(originals, corrected, CALIBRATION_CHUNKS)
    parts = chunk_map(
        progress, calibration_part, ranges, shared=(flat, corrected), total=total, advance=False
    )
    return finish_calibration(len(flat), parts)


def chunk_size(n_anonymized: int) -> int:
    return max(1, math.ceil(n_anonymized / PROGRESS_STEPS))


def search(progress, name, originals, anonymized, lam, *, windowed, percent, done, total):
    """One exact or windowed pass; progress advances by one per chunk of anonymized trajectories."""
    from app.core.trajectory.fast.search import (
        COMPILED,
        finish_search,
        plan_search,
        query_chunks,
        search_chunk,
    )

    size = chunk_size(len(anonymized))
    if name not in COMPILED:
        return _plain_search(progress, originals, anonymized, windowed, percent, done, total)
    plan = plan_search(name, originals, anonymized, lam, windowed=windowed, percent=percent)
    parts = chunk_map(
        progress, search_chunk, query_chunks(plan, size), shared=plan, done=done, total=total
    )
    return finish_search(plan, [x for part in parts for x in part])


def _plain_part(shared, lo, hi):
    originals, anonymized, windowed, percent = shared
    if windowed:
        return windowed_record_linkage(
            originals, anonymized[lo:hi], synchronized_haversine, percent
        ).links
    return record_linkage(originals, anonymized[lo:hi], synchronized_haversine).links


def _plain_search(progress, originals, anonymized, windowed, percent, done, total):
    size = chunk_size(len(anonymized))
    ranges = [(lo, min(len(anonymized), lo + size)) for lo in range(0, len(anonymized), size)]
    shared = (originals, anonymized, windowed, percent)
    parts = chunk_map(progress, _plain_part, ranges, shared=shared, done=done, total=total)
    links = tuple(link for part in parts for link in part)
    n = len(originals)
    risk = sum((link.probability for link in links), Fraction(0)) / n
    window = None
    if windowed:
        from app.core.trajectory.linkage import window_size

        window = window_size(n, percent)
    return LinkageResult(risk, n, len(links), window, links)


def passes_of(n_anonymized: int, passes: int) -> int:
    """Progress units of ``passes`` search passes."""
    return passes * math.ceil(n_anonymized / chunk_size(n_anonymized)) if n_anonymized else 0


def timed(fn, *args, **kwargs):
    start = time.perf_counter()
    value = fn(*args, **kwargs)
    return value, time.perf_counter() - start


def nearest_histogram(result: LinkageResult, bins: int = 20) -> dict:
    """Counts of distances to the nearest original, split by whether the link is correct."""
    d = np.array([link.distance for link in result.links], dtype=np.float64)
    finite = np.isfinite(d)
    if not finite.any():
        return {"edges": [], "linked": [], "not_linked": []}
    edges = np.histogram_bin_edges(d[finite], bins=bins)
    hit = np.array([link.probability > 0 for link in result.links])
    linked, _ = np.histogram(d[finite & hit], bins=edges)
    other, _ = np.histogram(d[finite & ~hit], bins=edges)
    return {"edges": edges.tolist(), "linked": linked.tolist(), "not_linked": other.tolist()}


def cli_report(result: LinkageResult, lam, max_dist, seconds: float, distance: str) -> dict:
    """The CLI's ``--json`` object (also what the API returns for a finished job)."""
    return {
        "distance": distance,
        "rl_percent": result.percent,
        "rl_exact": str(result.risk),
        "linked": result.linked,
        "n_original": result.n_original,
        "n_anonymized": result.n_anonymized,
        "lambda": lam,
        "max_dist": max_dist,
        "window_size": result.window,
        "candidates": sum(link.candidates for link in result.links),
        "seconds": seconds,
    }


def ensemble_report(results: dict[str, LinkageResult], top: int | None = None) -> dict:
    """RL under each distance, the maximum, and per anonymized trajectory its linked originals.

    The attacker picks the distance that links most, so the maximum RL is the one to assume.
    """
    per = {name: {"rl_percent": r.percent, "rl_exact": str(r.risk)} for name, r in results.items()}
    worst = max(results, key=lambda name: results[name].risk)
    ids = [link.anonymized_id for link in next(iter(results.values())).links]
    rows = []
    for k, tid in enumerate(ids):
        linked = {
            name: list(r.links[k].closest_ids) for name, r in results.items()
            if r.links[k].probability > 0
        }  # fmt: skip
        rows.append({"anonymized_id": tid, "linked_by": linked})
    rows.sort(key=lambda row: (-len(row["linked_by"]), row["anonymized_id"]))
    return {
        "per_distance": per,
        "max": {"distance": worst, **per[worst]},
        "trajectories": rows if top is None else rows[:top],
    }
