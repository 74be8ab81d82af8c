"""Triage a linker's scored pairs: thresholds, calibration sample, review order. Pure numpy.

Given each pair's match probability and match weight (Splink: ``p = 2^w / (1 + 2^w)``) and
the manager's :class:`TriageSettings`, :func:`triage` says what happens to every pair:

- score above ``upper``: the model decides *match*; below ``lower``: *non-match*; inside the
  band (bounds included): reviewers decide;
- a **calibration sample** of ``calibration`` pairs, drawn with ``seed`` and stratified by
  match weight over the whole score range (:func:`calibration_sample`), is reviewed too,
  wherever its pairs fall (a drawn pair outside the band keeps the model's decision only as
  the fallback of the final linkage until people decide it);
- reviewed pairs come first, in order of uncertainty (``|w|`` ascending: closest to
  probability 0.5 first) or of the file, then the model's pairs in file order (the round
  stores these by decision and record id: ``rounds.by_record``).

Why the sample is stratified over the whole range (and not drawn from the band): see
``docs/triage.md``. No database, no Flask: arrays in, arrays and plain values out.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import asdict, dataclass, field

import numpy as np

__all__ = [
    "ORDERS",
    "SCORES",
    "Strata",
    "TriageError",
    "TriageSettings",
    "Triaged",
    "calibration_sample",
    "side_histogram",
    "triage",
]

SCORES = ("probability", "weight")
ORDERS = ("uncertainty", "file")
MAX_CALIBRATION = 100_000
MAX_BINS = 100
BAND, CALIBRATION, MODEL = "band", "calibration", "model"
MATCH, NON_MATCH = "match", "non_match"


class TriageError(ValueError):
    """The triage settings are invalid; ``problems`` lists each."""

    def __init__(self, problems: list[str]):
        self.problems = list(problems)
        super().__init__("; ".join(self.problems))


def _number(raw: Mapping, name: str, problems: list[str], default=None) -> float | None:
    value = raw.get(name, default)
    if isinstance(value, str):
        try:
            value = float(value)
        except ValueError:
            value = None
    if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value):
        problems.append(f"'{name}' must be a number")
        return None
    return float(value)


def _whole(raw: Mapping, name: str, low: int, high: int, default: int, problems) -> int:
    value = raw.get(name, default)
    if isinstance(value, str) and value.strip().lstrip("-").isdigit():
        value = int(value)
    if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
        problems.append(f"'{name}' must be a whole number from {low} to {high:,}")
        return default
    return value


@dataclass(frozen=True)
class TriageSettings:
    """The manager's choice: thresholds on a score, the calibration draw and review order."""

    lower: float
    upper: float
    calibration: int = 0
    seed: int = 0
    score: str = "probability"
    order: str = "uncertainty"
    bins: int = 10

    @classmethod
    def parse(cls, raw: Mapping) -> TriageSettings:
        """Validate a JSON-like (or form) mapping; raise :class:`TriageError` listing problems."""
        if not isinstance(raw, Mapping):
            raise TriageError(["'triage' must be an object with 'lower' and 'upper'"])
        problems: list[str] = []
        score = raw.get("score", "probability") or "probability"
        if score not in SCORES:
            problems.append("'score' must be 'probability' or 'weight'")
        order = raw.get("order", "uncertainty") or "uncertainty"
        if order not in ORDERS:
            problems.append("'order' must be 'uncertainty' or 'file'")
        lower = _number(raw, "lower", problems)
        upper = _number(raw, "upper", problems)
        if lower is not None and upper is not None:
            if lower > upper:
                problems.append("'lower' must not be above 'upper'")
            if score == "probability" and not (lower >= 0 and upper <= 1):
                problems.append("probability thresholds lie between 0 and 1")
        calibration = _whole(raw, "calibration", 0, MAX_CALIBRATION, 0, problems)
        seed = _whole(raw, "seed", 0, 2**63 - 1, 0, problems)
        bins = _whole(raw, "bins", 1, MAX_BINS, 10, problems)
        if problems:
            raise TriageError(problems)
        return cls(lower, upper, calibration, seed, score, order, bins)

    def as_dict(self) -> dict:
        return asdict(self)


@dataclass(frozen=True)
class Strata:
    """The calibration strata: match-weight bin edges, pairs in each bin, pairs drawn."""

    edges: list[float]
    population: list[int]
    drawn: list[int]

    def as_dict(self) -> dict:
        return asdict(self)


@dataclass(frozen=True)
class Triaged:
    """What the triage decided, per pair (file order), and the counts a manager sees.

    ``purpose`` holds ``band``, ``calibration`` or ``model``; ``decision`` the model's
    ``match``/``non_match`` outside the band (``None`` inside); ``order`` lists pair indices
    as they are to be stored: the reviewed pairs in review order, then the model's.
    """

    purpose: np.ndarray
    decision: np.ndarray
    order: np.ndarray
    counts: dict[str, int]
    strata: Strata | None = None
    settings: TriageSettings | None = field(default=None, compare=False)


def _sides(score: np.ndarray, settings: TriageSettings) -> tuple[np.ndarray, np.ndarray]:
    return score > settings.upper, score < settings.lower


def triage(probability: np.ndarray, weight: np.ndarray, settings: TriageSettings) -> Triaged:
    """Split scored pairs by ``settings`` (see the module docstring)."""
    probability, weight = np.asarray(probability, float), np.asarray(weight, float)
    score = probability if settings.score == "probability" else weight
    above, below = _sides(score, settings)
    inside = ~(above | below)
    drawn, strata = calibration_sample(weight, settings.calibration, settings.seed, settings.bins)
    chosen = np.zeros(len(score), dtype=bool)
    chosen[drawn] = True
    # object arrays made by indexing three shared values: no string built per pair
    which = np.where(chosen, 2, inside.view(np.int8))
    purpose = np.array([MODEL, BAND, CALIBRATION], object)[which]
    decision = np.array([None, MATCH, NON_MATCH], object)[above.view(np.int8) + 2 * below]
    reviewed = np.flatnonzero(chosen | inside)
    if settings.order == "uncertainty":
        reviewed = reviewed[np.argsort(np.abs(_finite(weight[reviewed])), kind="stable")]
    order = np.concatenate([reviewed, np.flatnonzero(~(chosen | inside))]).astype(np.int64)
    counts = {
        "pairs": len(score),
        "above": int(above.sum()),
        "inside": int(inside.sum()),
        "below": int(below.sum()),
        "calibration": int(chosen.sum()),
        "calibration_above": int((chosen & above).sum()),
        "calibration_inside": int((chosen & inside).sum()),
        "calibration_below": int((chosen & below).sum()),
        "review": len(reviewed),
        "model_match": int((above & ~chosen).sum()),
        "model_non_match": int((below & ~chosen).sum()),
    }
    return Triaged(purpose, decision, order, counts, strata, settings)


def _finite(values: np.ndarray) -> np.ndarray:
    """Infinite weights (probability exactly 0 or 1) clipped to the finite range."""
    finite = values[np.isfinite(values)]
    if not len(finite):
        return np.zeros_like(values)
    return np.clip(np.nan_to_num(values, nan=0.0), finite.min(), finite.max())


def calibration_sample(
    weight: np.ndarray, n: int, seed: int, bins: int = 10
) -> tuple[np.ndarray, Strata | None]:
    """Draw ``n`` pair indices, stratified by match weight over its whole range.

    The range ``[min w, max w]`` is cut into ``bins`` equal-width bins and each gets an equal
    share of ``n`` (a bin with fewer pairs gives all it has, its unused share goes to the
    others in turn), drawn without replacement by ``numpy.random.default_rng(seed)`` from
    the bin's pairs in file order: the same file and seed give the same sample. Equal shares
    put labels where the model has few pairs (the rare matches, the uncertain middle), which
    a uniform draw over a file of mostly clear non-matches would not. Returns the indices
    (ascending) and the :class:`Strata` (``None`` when ``n`` is 0).
    """
    weight = _finite(np.asarray(weight, float))
    total = len(weight)
    n = min(int(n), total)
    if n <= 0:
        return np.zeros(0, dtype=np.int64), None
    lo, hi = float(weight.min()), float(weight.max())
    edges = np.linspace(lo, hi if hi > lo else lo + 1.0, bins + 1)
    which = np.clip(np.searchsorted(edges, weight, side="right") - 1, 0, bins - 1)
    population = np.bincount(which, minlength=bins)
    share = _shares(population, n)
    rng = np.random.default_rng(seed)
    members = np.argsort(which, kind="stable")
    starts = np.concatenate([[0], np.cumsum(population)])
    drawn = [
        rng.choice(members[starts[b] : starts[b + 1]], size=share[b], replace=False)
        for b in range(bins)
        if share[b]
    ]
    indices = np.sort(np.concatenate(drawn)).astype(np.int64)
    strata = Strata([float(e) for e in edges], population.tolist(), share.tolist())
    return indices, strata


def _shares(population: np.ndarray, n: int) -> np.ndarray:
    """Split ``n`` as equally as the bins' populations allow (water-filling, deterministic).

    Every bin gets ``min(population, L)`` for the largest level ``L`` that fits in ``n``;
    what is left goes one each to the first bins that still have pairs, so bins short of
    their population differ by at most one.
    """
    low, high = 0, int(population.max(initial=0))
    while low < high:  # the largest L with sum(min(population, L)) <= n
        mid = (low + high + 1) // 2
        if int(np.minimum(population, mid).sum()) <= n:
            low = mid
        else:
            high = mid - 1
    share = np.minimum(population, low).astype(np.int64)
    left = n - int(share.sum())
    spare = np.flatnonzero(population > share)[:left]
    share[spare] += 1
    return share


def side_histogram(
    values: np.ndarray, lower: float, upper: float, bins: int = 20, lo=None, hi=None
) -> tuple[list[float], dict[str, list[int]]]:
    """Counts per equal-width bin of ``values``, split into below/inside/above the band.

    Returns the bin edges and ``{"below": [...], "inside": [...], "above": [...]}``; ``lo``
    and ``hi`` fix the range (0 and 1 for probabilities), else the finite values' own.
    """
    values = _finite(np.asarray(values, float))
    lo = float(values.min()) if lo is None and len(values) else (0.0 if lo is None else lo)
    hi = float(values.max()) if hi is None and len(values) else (1.0 if hi is None else hi)
    if hi <= lo:
        hi = lo + 1.0
    edges = np.linspace(lo, hi, bins + 1)
    out = {}
    for side, mask in (
        ("below", values < lower),
        ("inside", (values >= lower) & (values <= upper)),
        ("above", values > upper),
    ):
        out[side] = np.histogram(values[mask], bins=edges)[0].tolist()
    return [float(e) for e in edges], out
