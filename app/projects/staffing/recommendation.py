"""Budget recommendation: the KAPR a worker needs to see every discrepancy at partial.

For a set of pairs, the *all-partial state* opens every cell that has a partial level
(:func:`app.core.disclosure.display.partial_available`: the two values differ, neither is missing,
the attribute is not a category, and partial shows some but not all of the cell's
characters) and leaves every other cell masked: exactly what the assignment form's
"start at partial" does with every attribute ticked, and the paper's Table 4. Its KAPR is
computed by the reveal path's core functions (:func:`app.core.kapr.score.kapr_score`).

A pair's term depends only on that pair, so the all-partial KAPR of any set of pairs is the
mean of its pairs' *one-pair values* ``kappa/(2·D) · pair_risk`` (the KAPR of the pair shown
alone). That distribution over pairs tells a manager what a share of the pairs will need;
its quantiles are nearest-rank (each is the value of some pair, an exact fraction).

Pricing a pair aligns and counts it (about a millisecond), so above
``RECOMMENDATION_SAMPLE`` pairs (default :data:`DEFAULT_SAMPLE`) the recommendation is
*estimated* from a uniform random sample of that many pairs drawn with a fixed seed (the same
pairs every time for the same pairs): the sample's mean is an unbiased estimate of the
all-partial KAPR, given with a 95% interval (normal approximation with the finite-population
correction), and its quantiles estimate the pairs' quantiles. ``population`` says how many
pairs it stands for; ``sampled`` says it is an estimate.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction

import numpy as np
from flask import current_app
from sqlalchemy import func, select
from sqlalchemy.orm import selectinload

from app import charts
from app.analytics.kapr import assess_states, attributes_of
from app.bulk import int_table
from app.core.disclosure import Level
from app.core.kapr import kapr_score
from app.extensions import db
from app.models import Assignment, AssignmentPair, Pair, Project, reviewed_pairs
from app.review.grid import PairState

__all__ = [
    "QUANTILES",
    "Recommendation",
    "budget_recommendation",
    "distribution_chart",
    "exact_recommendation",
    "form_recommendation",
    "nearest_rank",
    "per_pair_table",
    "recommend_for",
    "sample_size",
]

QUANTILES = (0.0, 0.25, 0.5, 0.75, 0.9, 0.95, 1.0)
#: Pairs priced at most (``RECOMMENDATION_SAMPLE``); more pairs are estimated from a sample.
DEFAULT_SAMPLE = 1000
SEED = 0
#: Above this many pairs the assignment form links to the API instead of computing on every
#: page load (each pair is aligned and priced: about a millisecond a pair).
FORM_PAIRS_LIMIT = 5000
CHUNK = 10_000
#: Pairs priced between two progress reports.
STEP = 100


@dataclass(frozen=True)
class Recommendation:
    """The all-partial KAPR of ``pairs`` pairs and the distribution of the one-pair values."""

    pairs: int
    kapr: Fraction
    within_bound: bool
    per_pair: list[tuple[int, Fraction]]  # (pair id, one-pair all-partial KAPR)
    quantiles: dict[float, Fraction]
    population: int = 0  # the pairs it is for (``pairs`` of them priced); 0: ``pairs``
    interval: tuple[float, float] | None = None  # 95% interval of the mean, when sampled

    @property
    def sampled(self) -> bool:
        return self.population > self.pairs

    @property
    def values(self) -> list[Fraction]:
        return [v for _, v in self.per_pair]

    def as_dict(self) -> dict:
        sample = {}
        if self.sampled:
            sample = {
                "sampled": True,
                "population": self.population,
                "interval_95": [float(v) for v in self.interval],
            }
        return {
            **sample,
            "pairs": self.pairs,
            "kapr": _exact(self.kapr),
            "within_bound": self.within_bound,
            "mean_of_pairs": _exact(self.kapr),
            "quantiles": {f"{q:g}": _exact(v) for q, v in self.quantiles.items()},
            "pairs_needing_nothing": sum(v == 0 for v in self.values),
            "per_pair": [{"pair": p, **_exact(v)} for p, v in self.per_pair],
        }

    @classmethod
    def from_dict(cls, body: dict) -> Recommendation:
        """The recommendation :meth:`as_dict` gave (exact: every value is read back from its
        fraction)."""
        sampled = body.get("sampled", False)
        return cls(
            pairs=body["pairs"],
            kapr=Fraction(body["kapr"]["exact"]),
            within_bound=body["within_bound"],
            per_pair=[(p["pair"], Fraction(p["exact"])) for p in body["per_pair"]],
            quantiles={float(q): Fraction(v["exact"]) for q, v in body["quantiles"].items()},
            population=body["population"] if sampled else 0,
            interval=tuple(body["interval_95"]) if sampled else None,
        )


def _exact(value: Fraction) -> dict:
    return {"exact": str(value), "float": float(value)}


def nearest_rank(values: Sequence[Fraction], q: float) -> Fraction:
    """The nearest-rank ``q``-quantile: the ⌈q·n⌉-th smallest value (the smallest for q=0)."""
    return _ranked(sorted(values), q)


def _ranked(ordered: Sequence[Fraction], q: float) -> Fraction:
    """:func:`nearest_rank` of values already sorted (sorting fractions is the cost)."""
    if not ordered:
        raise ValueError("no values")
    return ordered[max(math.ceil(q * len(ordered)), 1) - 1]


def all_partial(state: PairState) -> PairState:
    """Set every cell of ``state`` that has a partial level to partial (others stay masked)."""
    for row in (0, 1):
        for attribute in state.attributes:
            if state.next_level(row, attribute.name) is Level.PARTIAL:
                state.levels[row, attribute.name] = Level.PARTIAL
    return state


def budget_recommendation(
    project: Project, pair_ids: Sequence[int] | None = None, progress=None
) -> Recommendation | None:
    """The recommendation over ``pair_ids`` (default: all the project's pairs to review: the
    model's are never assigned); None if none. Estimated from a seeded sample above
    ``RECOMMENDATION_SAMPLE`` pairs (module docstring). ``progress(done, total)`` counts the
    pairs priced."""
    if pair_ids is None:
        # sorted here: ORDER BY id made SQLite read every pair's row by the project's id index
        ids = np.sort(int_table(select(Pair.id).where(*reviewed_pairs(project.id)), 1)[:, 0])
    else:
        ids = np.unique(np.asarray(pair_ids, dtype=np.int64))
    if not len(ids) or not project.identifying:
        return None
    limit = sample_size()
    population = len(ids)
    if population > limit:
        rng = np.random.default_rng(SEED)
        ids = np.sort(rng.choice(ids, limit, replace=False))
    found = exact_recommendation(project, ids.tolist(), progress)
    if found is None or population == found.pairs:
        return found
    values = np.array([float(v) for v in found.values])
    n = len(values)
    spread = values.std(ddof=1) if n > 1 else 0.0
    half = 1.96 * spread / math.sqrt(n) * math.sqrt((population - n) / (population - 1))
    mean = float(found.kapr)
    return dataclasses.replace(
        found, population=population, interval=(max(mean - half, 0.0), mean + half)
    )


def sample_size() -> int:
    """The most pairs a recommendation prices (``RECOMMENDATION_SAMPLE``)."""
    return int(current_app.config.get("RECOMMENDATION_SAMPLE", DEFAULT_SAMPLE))


def exact_recommendation(
    project: Project, pair_ids: list[int], progress=None
) -> Recommendation | None:
    """The recommendation over exactly ``pair_ids`` (each priced); None if none.

    Priced :data:`STEP` pairs at a time, each step reported to ``progress(done, total)``; the
    score is made once from every pair's term, so the steps change no value.
    """
    pairs: list[Pair] = []
    for start in range(0, len(pair_ids), CHUNK):  # bounded IN lists
        pairs.extend(
            db.session.scalars(
                select(Pair)
                .where(Pair.project_id == project.id, Pair.id.in_(pair_ids[start : start + CHUNK]))
                .options(selectinload(Pair.record_a), selectinload(Pair.record_b))
            )
        )
    pairs.sort(key=lambda p: p.id)
    if not pairs or not project.identifying:
        return None
    if progress is not None:
        # A job's progress commits its session, which would expire (and reload, one by one)
        # every pair and record: price a detached snapshot of them instead.
        for row in {id(r): r for p in pairs for r in (p, p.record_a, p.record_b)}.values():
            db.session.expunge(row)
    attributes = attributes_of(project)
    assessments = []
    for start in range(0, len(pairs), STEP):
        part = pairs[start : start + STEP]
        states = [
            all_partial(PairState(p.id, attributes, (p.record_a.values, p.record_b.values)))
            for p in part
        ]
        assessments += assess_states(project, part, states)
        if progress is not None:
            progress(len(assessments), len(pairs))
    n_attributes = len(attributes)
    score = kapr_score(assessments, project.kappa, 2 * len(pairs), n_attributes)
    one = Fraction(project.kappa, 2 * n_attributes)
    per_pair = [(p.id, one * a.value) for p, a in zip(pairs, assessments, strict=True)]
    ordered = sorted(v for _, v in per_pair)
    quantiles = {q: _ranked(ordered, q) for q in QUANTILES}
    return Recommendation(len(pairs), score.value, score.within_bound, per_pair, quantiles)


def form_recommendation(project: Project, inline: bool = True) -> tuple[Recommendation | None, int]:
    """The recommendation for the assignment form and the project's number of pairs; None
    when there are no pairs, more than :data:`FORM_PAIRS_LIMIT` or not ``inline`` (it would
    take long: app.projects.staffing.recommending)."""
    n_pairs = db.session.scalar(
        select(func.count()).select_from(Pair).where(Pair.project_id == project.id)
    )
    if not n_pairs or n_pairs > FORM_PAIRS_LIMIT or not inline:
        return None, n_pairs
    return budget_recommendation(project), n_pairs


def recommend_for(
    project: Project, assignment_id: int | None = None, progress=None
) -> Recommendation | None:
    """The recommendation over one assignment's pairs, or over all pairs when None.

    Raises :class:`LookupError` when ``assignment_id`` is not an assignment of ``project``.
    """
    if assignment_id is None:
        return budget_recommendation(project, progress=progress)
    assignment = db.session.get(Assignment, assignment_id)
    if assignment is None or assignment.project_id != project.id:
        raise LookupError(f"no assignment {assignment_id} in this project")
    query = select(AssignmentPair.pair_id).where(AssignmentPair.assignment_id == assignment_id)
    return budget_recommendation(project, int_table(query, 1)[:, 0], progress)


def distribution_chart(recommendation: Recommendation) -> dict:
    """A histogram of the one-pair all-partial KAPRs."""
    return charts.histogram(
        "Budget to open every discrepancy at partial, per pair",
        [100 * float(v) for v in recommendation.values],
        bins=10,
        lo=0.0,
        x_title="KAPR of the pair shown alone, all partial (% of the maximum KAPR)",
        y_title="Pairs",
        label="Pairs",
    )


def per_pair_table(recommendation: Recommendation) -> tuple[list[str], list[list]]:
    """Header and rows of the per-pair values (CSV download): exact, as a float, in percent."""
    header = ["pair", "kapr_exact", "kapr", "kapr_percent"]
    return header, [[p, str(v), float(v), 100 * float(v)] for p, v in recommendation.per_pair]
