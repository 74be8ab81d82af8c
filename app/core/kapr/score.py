"""The k-Anonymized Privacy Risk score (paper Definition 4.6, spec/README.md §2).

``K(kappa; X) = kappa/(N·D) · Σ_i (1/k_i) Σ_j p_ij`` over one assignment's display, with
N = displayed rows (two per pair), D = displayed identifying attributes, ``p_ij`` from
:attr:`Evidence.p` and ``k_i`` from :class:`AnonymityIndex` (``row`` model) or
:func:`count_pair` (``pair`` model). Every returned number is an exact :class:`Fraction`.

A pair's term ``Σ_{i in pair} (1/k_i) Σ_j p_ij`` (:func:`pair_risk`) depends only on that
pair's two rows and markers, under both models: ``k_i`` looks at row *i*, its partner and their
markers, never at another pair. So a reveal changes exactly one pair's term, and the service
keeps a running total and charges ``kappa/(N·D) · (pair_risk(after) - pair_risk(before))``
(:func:`reveal_cost`). :func:`next_costs` previews a page with the same function.

Rows that disclose nothing (``Σ_j p_ij = 0``) contribute 0 whatever ``k_i`` is, so their
``k_i`` is never computed. ``K <= 1`` (Property 4.3) holds only when every disclosing row has
``k_i >= kappa``; :class:`KaprScore` reports whether it does instead of clamping.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction

from app.core.kapr.anonymity import AnonymityIndex
from app.core.kapr.costs import SIDES, Model, PairCosts, PairRisk, PairView, Side, disclosed
from app.core.kapr.evidence import Evidence, Markers, Row

__all__ = [
    "KaprScore",
    "PairRisk",
    "PairView",
    "assess_pair",
    "disclosed",
    "disclosure_state",
    "kapr",
    "kapr_score",
    "next_costs",
    "pair_risk",
    "reveal_cost",
    "state_norm",
]


@dataclass(frozen=True, slots=True)
class KaprScore:
    """A KAPR score and whether Property 4.3's bound ``K <= 1`` is guaranteed for it."""

    value: Fraction
    min_k: int | None
    within_bound: bool


def _scale(kappa: int, n_rows: int, n_attributes: int) -> Fraction:
    if kappa < 1 or n_rows < 1 or n_attributes < 1:
        raise ValueError("kappa, N and D must be positive")
    return Fraction(kappa, n_rows * n_attributes)


def assess_pair(
    left: Row,
    right: Row,
    markers: Markers,
    left_index: AnonymityIndex,
    right_index: AnonymityIndex,
    model: Model = "row",
) -> PairRisk:
    """Return a pair's unscaled term ``Σ_{i in pair} (1/k_i) Σ_j p_ij`` and its ``k_i``."""
    return PairCosts(PairView(left, right, markers), (left_index, right_index), model).risk()


def pair_risk(
    left: Row,
    right: Row,
    markers: Markers,
    left_index: AnonymityIndex,
    right_index: AnonymityIndex,
    model: Model = "row",
) -> Fraction:
    """Return a pair's unscaled term ``Σ_{i in pair} (1/k_i) Σ_j p_ij``."""
    return assess_pair(left, right, markers, left_index, right_index, model).value


def kapr(pair_risks: Iterable[Fraction], kappa: int, n_rows: int, n_attributes: int) -> Fraction:
    """Return ``K = kappa/(N·D) · Σ pair_risk`` (Definition 4.6; N = displayed rows)."""
    return _scale(kappa, n_rows, n_attributes) * sum(pair_risks, Fraction(0))


def kapr_score(
    assessments: Iterable[PairRisk], kappa: int, n_rows: int, n_attributes: int
) -> KaprScore:
    """Return K with the smallest ``k_i`` of the disclosing rows and whether ``K <= 1``."""
    assessments = list(assessments)
    ks = [k for a in assessments for k in a.k if k is not None]
    min_k = min(ks, default=None)
    value = kapr((a.value for a in assessments), kappa, n_rows, n_attributes)
    return KaprScore(value, min_k, min_k is None or min_k >= kappa)


def reveal_cost(
    pair: PairView,
    side: Side,
    attribute: str,
    evidence: Evidence,
    left_index: AnonymityIndex,
    right_index: AnonymityIndex,
    *,
    kappa: int,
    n_rows: int,
    n_attributes: int,
    model: Model = "row",
) -> Fraction:
    """Return the KAPR increase of showing ``evidence`` in one cell: the charge."""
    costs = PairCosts(pair, (left_index, right_index), model)
    return costs.delta(side, attribute, evidence, _scale(kappa, n_rows, n_attributes))


def next_costs(
    pairs: Sequence[PairView],
    next_evidence: Callable[[int, Side, str], Evidence | None],
    left_index: AnonymityIndex,
    right_index: AnonymityIndex,
    *,
    kappa: int,
    n_rows: int,
    n_attributes: int,
    model: Model = "row",
) -> dict[tuple[int, Side, str], Fraction]:
    """Return the KAPR increase of every cell's next reveal, keyed ``(pair, side, attr)``.

    ``next_evidence(pair_number, side, attribute)`` gives the evidence the cell would show
    next (``None``: nothing further to reveal, the cell is skipped). Each value is computed
    by the same :meth:`PairCosts.delta` as :func:`reveal_cost`, so a preview is the charge.
    """
    scale = _scale(kappa, n_rows, n_attributes)
    costs: dict[tuple[int, Side, str], Fraction] = {}
    for number, pair in enumerate(pairs):
        evaluator = PairCosts(pair, (left_index, right_index), model)
        for side in SIDES:
            for attribute in _attributes(pair):
                evidence = next_evidence(number, side, attribute)
                if evidence is not None:
                    costs[number, side, attribute] = evaluator.delta(
                        side, attribute, evidence, scale
                    )
    return costs


def _attributes(pair: PairView) -> list[str]:
    return list(dict.fromkeys([*pair.left, *pair.right, *pair.markers]))


def disclosure_state(
    pairs: Sequence[PairView],
    attributes: Sequence[str],
    left_index: AnonymityIndex,
    right_index: AnonymityIndex,
    model: Model = "row",
) -> list[list[Fraction]]:
    """Return the information disclosure state ``X_ij = p_ij / k_i`` (Definition 4.5)."""
    state = []
    for pair in pairs:
        risk = PairCosts(pair, (left_index, right_index), model).risk()
        for side, k in zip(SIDES, risk.k, strict=True):
            row: Mapping[str, Evidence] = pair.row(side)
            state.append([row[a].p / k if k and a in row else Fraction(0) for a in attributes])
    return state


def state_norm(state: Sequence[Sequence[Fraction]], kappa: int) -> Fraction:
    """Return ``K = kappa/(N·D) · ||X||_{1,1}`` of a state matrix (Property 4.1)."""
    n_rows, n_attributes = len(state), len(state[0]) if state else 0
    total = sum((abs(x) for row in state for x in row), Fraction(0))
    return _scale(kappa, n_rows, n_attributes) * total
