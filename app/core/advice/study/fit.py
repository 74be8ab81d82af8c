"""Fit the human model to ``answers_given.csv`` and cross-validate it by scenario type.

Method (docs/advice.md §3): an L2-penalised logistic regression of the answer ("same" = 1) on
the features of :func:`app.core.advice.models.reviewers.features` of the pair as each participant's
display showed it, attention checks left out; the bias is not penalised; the penalty is the
one of :data:`PENALTIES` with the lowest leave-one-scenario-type-out log loss. Solved by
Newton's method from zeros: no randomness, the same coefficients on every machine to ~1e-9.

Validation: leave one scenario type out (all its pairs in every sample and mode): fit on the
other types, predict the left-out type's accuracy in each mode, and compare the predictions
with the observed accuracy per (type, mode) by Pearson correlation and mean absolute error;
the evidence model is scored alike (its world model re-estimated without the type's pairs).
"""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from app.core.advice.display.state import Reading
from app.core.advice.display.state import levels_of as read_levels
from app.core.advice.models.reviewers import EvidenceReviewer, HumanModel, features
from app.core.advice.models.world import World, fit_labelled
from app.core.advice.study.data import ATTRIBUTES, DISPLAYS, Answer, StudyPair, display_levels

__all__ = [
    "PENALTIES",
    "Validation",
    "fit_human",
    "fit_logistic",
    "levels_of",
    "study_world",
    "readings",
    "scored_answers",
    "validate",
]

PENALTIES = (0.3, 1.0, 3.0, 10.0, 30.0)
ROLES = {a: a for a in ATTRIBUTES}  # the study's columns are the roles themselves
UNPENALISED = frozenset({"bias", "truth"})
NONMATCHES = 4000


def readings(pairs: Iterable[StudyPair]) -> dict[tuple[int, int, int], Reading]:
    """The reading of every pair in every display: ``(mode, sample, question) -> Reading``."""
    out = {}
    for pair in pairs:
        for mode, display in DISPLAYS.items():
            shown = pair.shown(display_levels(pair, display), markup=display != "baseline")
            out[mode, pair.sample, pair.question] = shown.reading()
    return out


def scored_answers(answers: Iterable[Answer]) -> list[Answer]:
    """The answers the paper scores: attention checks left out."""
    return [a for a in answers if not a.attention]


def fit_logistic(rows: Sequence[Mapping[str, float]], y: Sequence[bool], penalty: float):
    """Return the :class:`HumanModel` maximising the L2-penalised log likelihood (Newton)."""
    names = sorted({f for r in rows for f in r})
    index = {f: i for i, f in enumerate(names)}
    x = np.zeros((len(rows), len(names)))
    for i, r in enumerate(rows):
        for f, v in r.items():
            x[i, index[f]] = v
    w = newton(x, np.asarray(y, dtype=float), _penalties(names, penalty))
    return HumanModel({f: float(v) for f, v in zip(names, w, strict=True)})


def _penalties(names: Sequence[str], penalty: float) -> np.ndarray:
    scale = np.full(len(names), penalty)
    scale[[i for i, f in enumerate(names) if f in UNPENALISED]] = 0.0
    return scale


def newton(x: np.ndarray, y: np.ndarray, scale: np.ndarray, steps: int = 100) -> np.ndarray:
    """Minimise ``Σ log(1 + e^z) - y z + ½ Σ scale w²`` with ``z = x w`` by Newton's method."""
    w = np.zeros(x.shape[1])
    for _ in range(steps):
        p = 1 / (1 + np.exp(-(x @ w)))
        gradient = x.T @ (p - y) + scale * w
        hessian = (x.T * (p * (1 - p))) @ x + np.diag(scale) + 1e-9 * np.eye(len(w))
        step = np.linalg.solve(hessian, gradient)
        w -= step
        if np.max(np.abs(step)) < 1e-10:
            break
    return w


def _design(answers, read):
    rows = [features(read[a.mode, a.sample, a.question], ROLES, a.same) for a in answers]
    return rows, [a.chosen_same for a in answers]


def _log_loss(model: HumanModel, rows, y) -> float:
    total = 0.0
    for r, answer in zip(rows, y, strict=True):
        z = model.log_odds(r)
        total += math.log1p(math.exp(-abs(z))) + max(0.0, -z if answer else z)
    return total


def fit_human(answers: Sequence[Answer], pairs: Sequence[StudyPair]) -> tuple[HumanModel, float]:
    """Fit the human model; return it and the penalty chosen (module docs)."""
    answers = scored_answers(answers)
    read = readings(pairs)
    rows, y = _design(answers, read)
    types = sorted({a.scenario for a in answers})
    losses = {}
    for penalty in PENALTIES:
        total = 0.0
        for t in types:
            keep = [i for i, a in enumerate(answers) if a.scenario != t]
            out = [i for i, a in enumerate(answers) if a.scenario == t]
            model = fit_logistic([rows[i] for i in keep], [y[i] for i in keep], penalty)
            total += _log_loss(model, [rows[i] for i in out], [y[i] for i in out])
        losses[penalty] = total
    penalty = min(PENALTIES, key=lambda p: (losses[p], p))
    return fit_logistic(rows, y, penalty), penalty


def levels_of(pair: StudyPair) -> dict[str, tuple[str, str]]:
    """The world model's level ``(s, z)`` of every attribute of a pair (values all read)."""
    return read_levels(pair.comparisons, name_swap=pair.swapped, rare=pair.rare)


def random_pairs(pairs: Sequence[StudyPair], count: int = NONMATCHES, seed: int = 1):
    """``count`` pairs of records drawn from two different study pairs (seeded): as good as
    all of two people, the sample ``u`` is estimated from."""
    rng = np.random.default_rng(seed)
    records = [(p, row) for p in pairs for row in (0, 1)]
    out = []
    while len(out) < count:
        i, j = rng.integers(len(records), size=2)
        (a, ra), (b, rb) = records[i], records[j]
        if a is b:
            continue
        out.append(
            StudyPair(0, 0, (a.values[ra], b.values[rb]), (a.counts[ra], b.counts[rb]), False)
        )
    return out


def study_world(pairs: Sequence[StudyPair]) -> World:
    """The world model of the study's pairs, counted with their truth (the ``Same`` column of
    the sample files; no answer is read)."""
    return fit_labelled([levels_of(p) for p in pairs], [bool(p.truth) for p in pairs], ATTRIBUTES)


@dataclass(frozen=True)
class Validation:
    """Predicted and observed accuracy per (scenario type, mode), for one reviewer model."""

    reviewer: str
    cells: tuple[tuple[int, int, float, float, int], ...]  # type, mode, predicted, observed, n

    @property
    def correlation(self) -> float:
        predicted, observed = (np.array([c[i] for c in self.cells]) for i in (2, 3))
        return float(np.corrcoef(predicted, observed)[0, 1])

    @property
    def mean_absolute_error(self) -> float:
        return float(np.mean([abs(c[2] - c[3]) for c in self.cells]))


def validate(
    answers: Sequence[Answer], pairs: Sequence[StudyPair], penalty: float
) -> tuple[Validation, Validation]:
    """Leave each scenario type out in turn (module docs): the human and evidence models."""
    answers = scored_answers(answers)
    read = readings(pairs)
    rows, y = _design(answers, read)
    truth = {(p.sample, p.question): p.truth for p in pairs}
    human, evidence = defaultdict(list), defaultdict(list)
    for t in sorted({a.scenario for a in answers}):
        keep = [i for i, a in enumerate(answers) if a.scenario != t]
        model = fit_logistic([rows[i] for i in keep], [y[i] for i in keep], penalty)
        world = study_world([p for p in pairs if p.scenario != t])
        reviewer = EvidenceReviewer(world)
        for i, a in enumerate(answers):
            if a.scenario != t:
                continue
            same = truth[a.sample, a.question]
            p = 1 / (1 + math.exp(-model.log_odds(rows[i])))  # rows hold the truth
            q = reviewer.p_same(read[a.mode, a.sample, a.question])
            cell = (t, a.mode)
            human[cell].append((p if same else 1 - p, a.chosen_same == same))
            evidence[cell].append((q if same else 1 - q, a.chosen_same == same))
    return _validation("human", human), _validation("evidence", evidence)


def _validation(name: str, cells: dict) -> Validation:
    return Validation(
        name,
        tuple(
            (t, mode, float(np.mean([p for p, _ in v])), float(np.mean([o for _, o in v])), len(v))
            for (t, mode), v in sorted(cells.items())
        ),
    )
