"""Trajectory record-linkage risk as a job: options, upload checks and the job function.

The request checks both files and the options (:func:`check_upload`, :func:`parse_options`)
so a bad file never creates a job; the job (:func:`trajectory_risk`) reads the same text
again, runs the search of :mod:`app.core.trajectory.linkage` in chunks of anonymized
trajectories to report progress, and returns a JSON-safe summary.
"""

from __future__ import annotations

import io
import math
from dataclasses import asdict, dataclass

from flask import current_app, has_app_context

from app.analytics.trajectory import run
from app.core.trajectory.columns import read_columns
from app.core.trajectory.linkage import LinkageResult
from app.core.trajectory.model import Trajectory, TrajectoryFormatError, read_trajectories
from app.limits import Limits

DISTANCES = {
    "martinez2021": "Martinez et al. 2021, as the reference computes it",
    "corrected": "Martinez 2021, unit-consistent calibration and robust speed",
    "synchronized": "Synchronized haversine (positions at the same instants)",
    "dtw": "Dynamic time warping (haversine ground distance)",
    "frechet": "Discrete Fréchet (haversine ground distance)",
    "hausdorff": "Hausdorff (haversine ground distance; order and time ignored)",
    "edr": "Edit distance on real sequences, time-aware (500 m, 15 min)",
    "ensemble": "Attacker ensemble: every distance above but synchronized; RL is the worst",
}
MAX_BYTES = 50 * 2**20  # per uploaded file


_YES = ("on", "1", "true", "y")


class OptionsError(ValueError):
    """Options that cannot run; the message says which field and why."""


@dataclass(frozen=True)
class RiskOptions:
    distance: str = "martinez2021"
    search: str = "exact"  # exact | windowed
    window_percent: float | None = None  # None: the reference's default rule
    lam: float | None = None  # None: calibrated over the originals
    compare_exact: bool = True  # with a windowed search, run the exact one too
    top: int = 25
    sweep: bool = False  # also run windowed searches at SWEEP_PERCENTS (RL, time vs window)


def _number(text: str, field: str) -> float | None:
    text = (text or "").strip()
    if not text:
        return None
    try:
        value = float(text)
    except ValueError:
        raise OptionsError(f"{field} must be a number, not {text!r}") from None
    if not math.isfinite(value):
        raise OptionsError(f"{field} must be finite")
    return value


def parse_options(form) -> RiskOptions:
    """Validate the form's options (a mapping of strings)."""
    distance = form.get("distance", "martinez2021")
    if distance not in DISTANCES:
        raise OptionsError(f"unknown distance {distance!r}")
    search = form.get("search", "exact")
    if search not in ("exact", "windowed"):
        raise OptionsError("search must be exact or windowed")
    percent = _number(form.get("window_percent", ""), "Window percent")
    if percent is not None and not 0 < percent <= 100:
        raise OptionsError("Window percent must be in (0, 100]")
    lam = _number(form.get("lam", ""), "λ")
    if lam is not None and (lam <= 0 or distance not in ("martinez2021", "corrected")):
        raise OptionsError("λ must be positive and applies to the Martinez distances only")
    top = _number(form.get("top", "") or "25", "Top N")
    if top is None or top != int(top) or not 1 <= top <= 1000:
        raise OptionsError("Top N must be a whole number from 1 to 1000")
    compare = search == "windowed" and form.get("compare_exact") in _YES
    if distance == "ensemble" and search == "windowed":
        raise OptionsError("the attacker ensemble runs the exact search only")
    return RiskOptions(
        distance, search, percent, lam, compare or search == "exact", int(top),
        sweep=form.get("sweep") in _YES and distance != "ensemble",
    )  # fmt: skip


def _limits() -> Limits:
    return Limits.of(current_app.config) if has_app_context() else Limits()


def check_upload(text: str, label: str) -> list[Trajectory]:
    """Parse one uploaded CSV, naming the file in the error."""
    row_problem = _limits().row_problem
    try:
        trajectories = read_columns(text, row_problem)  # a plain file, without a row loop
        if trajectories is None:
            trajectories = read_trajectories(io.StringIO(text), row_problem)
    except TrajectoryFormatError as exc:
        error = TrajectoryFormatError(f"{label}: {exc}")  # the message already has the line
        error.line = exc.line
        raise error from None
    if not trajectories:
        raise TrajectoryFormatError(f"{label}: the file has no trajectories")
    return trajectories


def _read_text(storage, label: str, limit: int) -> tuple[str, str]:
    if storage is None or not storage.filename:
        raise TrajectoryFormatError(f"choose the {label}")
    data = storage.read(limit + 1)
    if len(data) > limit:
        raise TrajectoryFormatError(f"{storage.filename}: larger than {limit // 2**20} MB")
    try:
        return data.decode("utf-8-sig"), storage.filename
    except UnicodeDecodeError as exc:
        raise TrajectoryFormatError(f"{storage.filename}: not UTF-8 text ({exc.reason})") from None


def read_uploads(form, files, limit: int = MAX_BYTES) -> tuple[dict, tuple[str, str], dict]:
    """Check the options and both uploaded files before any job exists.

    Returns the options (as a dict, for the job), the two texts and the two file names.
    """
    options = parse_options(form)
    texts, names = [], {}
    for key, label in (("original", "original file"), ("anonymized", "anonymized file")):
        text, names[key] = _read_text(files.get(key), label, limit)
        texts.append(text)
    for text, name in zip(texts, names.values(), strict=True):
        check_upload(text, name)
    return asdict(options), (texts[0], texts[1]), names


def _calibrated(progress, name: str, opts: RiskOptions, originals, total: int):
    """(λ, max_dist) for a Martinez distance (max_dist only when calibrated), else (None, None)."""
    if name not in ("martinez2021", "corrected"):
        return None, None
    if opts.lam is not None:
        return opts.lam, None
    cal = run.calibrate(progress, originals, name == "corrected", total)
    return cal.lam, cal.max_dist


def _passes(opts: RiskOptions) -> list[tuple[str, bool, float | None]]:
    """The search passes: (distance, windowed, window percent)."""
    if opts.distance == "ensemble":
        return [(name, False, None) for name in run.ENSEMBLE]
    passes = [(opts.distance, False, None)]
    if opts.search == "windowed":
        windowed = (opts.distance, True, opts.window_percent)
        passes = [windowed, *passes] if opts.compare_exact else [windowed]
    if opts.sweep:
        passes += [(opts.distance, True, p) for p in run.SWEEP_PERCENTS]
    return passes


def _finite(x: float) -> float | None:
    return x if math.isfinite(x) else None


def _summary(result: LinkageResult, top: int) -> dict:
    ranked = sorted(result.links, key=lambda k: (-k.probability, k.distance, k.anonymized_id))
    return {
        "risk": str(result.risk),
        "percent": result.percent,
        "linked": result.linked,
        "n_original": result.n_original,
        "n_anonymized": result.n_anonymized,
        "window": result.window,
        "comparisons": sum(link.candidates for link in result.links),
        "missed": sum(not link.true_in_candidates for link in result.links),
        "links": [
            {
                "anonymized_id": link.anonymized_id,
                "closest_ids": list(link.closest_ids[:10]),
                "ties": len(link.closest_ids),
                "distance": _finite(link.distance),
                "probability": str(link.probability),
                "candidates": link.candidates,
                "true_in_candidates": link.true_in_candidates,
            }
            for link in ranked[:top]
        ],
        "all_links": all_links(result),
    }


#: Columns of :func:`all_links`' rows.
ALL_LINKS_COLUMNS = ("anonymized_id", "ties", "probability", "distance")


def all_links(result: LinkageResult) -> dict:
    """Every anonymized trajectory's link, in file order, as compact rows (the page lists
    only the top ones): what the belief audit of the whole result reads."""
    rows = [
        [link.anonymized_id, len(link.closest_ids), str(link.probability), _finite(link.distance)]
        for link in result.links
    ]
    return {"columns": list(ALL_LINKS_COLUMNS), "rows": rows}


def trajectory_risk(
    original_csv: str, anonymized_csv: str, options: dict, names: dict, *, progress
) -> dict:
    """The job: RL of the anonymized file against the original (exact, windowed, sweep, ensemble).

    ``result["report"]`` is the CLI's ``--json`` object for the main search (for an ensemble,
    the worst-case distance, with RL per distance under ``"ensemble"``).
    """
    opts = RiskOptions(**options)
    originals = check_upload(original_csv, names.get("original", "original file"))
    anonymized = check_upload(anonymized_csv, names.get("anonymized", "anonymized file"))
    passes = _passes(opts)
    total = run.passes_of(len(anonymized), len(passes))
    progress(0, total)
    step = run.passes_of(len(anonymized), 1)
    calibrations, results, sweep = {}, {}, []
    for k, (name, windowed, percent) in enumerate(passes):
        if name not in calibrations:
            calibrations[name] = run.timed(_calibrated, progress, name, opts, originals, total)
        (lam, _), _ = calibrations[name]
        result, seconds = run.timed(
            run.search, progress, name, originals, anonymized, lam,
            windowed=windowed, percent=percent, done=k * step, total=total,
        )  # fmt: skip
        if k >= len(passes) - (len(run.SWEEP_PERCENTS) if opts.sweep else 0):
            sweep.append(_sweep_row(percent, result, seconds))
        else:
            results[(name, windowed)] = (result, seconds)
    return _assemble(opts, names, calibrations, results, sweep)


# Pure: its inputs are its arguments and its output the job's row, so a job queued for
# `flask jobs worker` (app.jobs.queue) runs again on another worker if its worker is killed.
trajectory_risk.job_attempts = 2


def _sweep_row(percent, result: LinkageResult, seconds: float) -> dict:
    return {
        "percent": percent,
        "window": result.window,
        "rl_percent": result.percent,
        "rl_exact": str(result.risk),
        "seconds": seconds,
        "candidates": sum(link.candidates for link in result.links),
        "missed": sum(not link.true_in_candidates for link in result.links),
    }


def _assemble(opts, names, calibrations, results, sweep) -> dict:
    main_name = opts.distance
    if opts.distance == "ensemble":
        by_name = {name: r for (name, _), (r, _) in results.items()}
        main_name = max(by_name, key=lambda name: by_name[name].risk)
    (lam, max_dist), cal_seconds = calibrations[main_name]
    out = {"options": asdict(opts), "files": names, "lambda": lam, "max_dist": max_dist}
    for (name, windowed), (result, _) in results.items():
        if name == main_name:
            key = "windowed" if windowed else "exact"
            out[key] = {**_summary(result, opts.top), "histogram": run.nearest_histogram(result)}
    main, seconds = results[(main_name, opts.search == "windowed" and main_name == opts.distance)]
    out["report"] = run.cli_report(main, lam, max_dist, seconds + cal_seconds, main_name)
    if sweep:
        out["sweep"] = sweep
    if opts.distance == "ensemble":
        out["ensemble"] = run.ensemble_report(by_name, opts.top)
        out["report"]["ensemble"] = {
            k: v for k, v in out["ensemble"].items() if k != "trajectories"
        }
    return out
