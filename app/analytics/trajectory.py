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
from fractions import Fraction

from app.core.trajectory.distances import Martinez2021, MartinezCorrected, calibrate
from app.core.trajectory.linkage import (
    LinkageResult,
    record_linkage,
    window_size,
    windowed_record_linkage,
)
from app.core.trajectory.model import Trajectory, TrajectoryFormatError, read_trajectories
from app.core.trajectory.shape import discrete_frechet, dtw, synchronized_haversine

DISTANCES = {
    "martinez2021": "Martinez et al. 2021, as the reference computes it",
    "corrected": "Martinez 2021, unit-consistent calibration and robust speed",
    "synchronized": "Synchronized haversine (positions at the same instants)",
    "dtw": "Dynamic time warping (haversine ground distance)",
    "frechet": "Discrete Fréchet (haversine ground distance)",
}
_SHAPE = {"synchronized": synchronized_haversine, "dtw": dtw, "frechet": discrete_frechet}
PROGRESS_STEPS = 50  # at most this many progress writes per pass
MAX_BYTES = 50 * 2**20  # per uploaded file


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
    compare = search == "windowed" and form.get("compare_exact") in ("on", "1", "true", "y")
    return RiskOptions(distance, search, percent, lam, compare or search == "exact", int(top))


def check_upload(text: str, label: str) -> list[Trajectory]:
    """Parse one uploaded CSV, naming the file in the error."""
    try:
        trajectories = read_trajectories(io.StringIO(text))
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


def _distance(options: RiskOptions, originals: list[Trajectory]):
    if options.distance in _SHAPE:
        return _SHAPE[options.distance], None
    corrected = options.distance == "corrected"
    lam = options.lam
    if lam is None:
        lam = calibrate(originals, corrected=corrected).lam
    return (MartinezCorrected if corrected else Martinez2021)(lam), lam


def _search(originals, anonymized, distance, percent, windowed, progress, offset, total):
    """One pass in chunks, so progress can be written between them."""
    step = max(1, math.ceil(len(anonymized) / PROGRESS_STEPS))
    links = []
    for start in range(0, len(anonymized), step):
        chunk = anonymized[start : start + step]
        if windowed:
            part = windowed_record_linkage(originals, chunk, distance, percent)
        else:
            part = record_linkage(originals, chunk, distance)
        links.extend(part.links)
        progress(offset + start + len(chunk), total)
    n = len(originals)
    risk = sum((link.probability for link in links), Fraction(0)) / n
    window = window_size(n, percent) if windowed else None
    return LinkageResult(risk, n, len(links), window, tuple(links))


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
    }


def trajectory_risk(
    original_csv: str, anonymized_csv: str, options: dict, names: dict, *, progress
) -> dict:
    """The job: RL of the anonymized file against the original, exact and/or windowed."""
    opts = RiskOptions(**options)
    originals = check_upload(original_csv, names.get("original", "original file"))
    anonymized = check_upload(anonymized_csv, names.get("anonymized", "anonymized file"))
    distance, lam = _distance(opts, originals)
    passes = [False]  # windowed: True, then the exact pass to compare with
    if opts.search == "windowed":
        passes = [True, False] if opts.compare_exact else [True]
    total = len(anonymized) * len(passes)
    progress(0, total)
    out = {"options": asdict(opts), "files": names, "lambda": lam}
    for k, windowed in enumerate(passes):
        result = _search(
            originals, anonymized, distance, opts.window_percent, windowed,
            progress, k * len(anonymized), total,
        )  # fmt: skip
        out["windowed" if windowed else "exact"] = _summary(result, opts.top)
    return out
