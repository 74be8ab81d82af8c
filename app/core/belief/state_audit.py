"""Re-identification audit of a disclosure state (Torra & Stokes over MINDFIRL's display).

Each displayed row *i* shows part of one true record ``t``. What it discloses is categorical
evidence (Example 11): ``m(C_i) = 1`` on its candidate set ``C_i``, the records of its source
consistent with the display under an evidence model (``row`` or ``pair``, spec/README.md §2),
so ``k_i = |C_i|`` is KAPR's anonymity-set size. Against it:

- the *true set* ``T`` is the records identical to ``t`` on every displayed identifying
  attribute, and the true probability is uniform on ``T`` (Example 8: what an attacker who saw
  everything could not tell apart);
- compatibility (Definition 7) of ``m(C) = 1`` with that P is ``T ⊆ C``; its violation
  ``max_A (Bel(A) − P(A)) = 1 − |T ∩ C|/|T|`` (witness ``C``), which the general max-flow
  :func:`app.core.belief.measures.compatibility` agrees with (tested);
- the pignistic probability of the true record is ``1/k`` when ``t ∈ C``, else 0;
- Proposition 19: the pignistic argmax lies strictly outside ``T`` exactly when
  ``T ∩ C = ∅`` (a uniform P_Bel ties everything in C);
- non-specificity (Definition 25) is ``log2 k`` bits;
- the row's KAPR term is ``kappa/(N·D) · Σ_j p_ij / k_i`` (0 for a row disclosing nothing).

``k`` under the ``pair`` model is :func:`app.core.kapr.pair.count.count_pair` (the number KAPR
charges with); membership of ``t`` and ``T`` is decided here from the one value tuple they
share (:mod:`app.core.belief._membership`), so no candidate set is ever materialised for the
pair model.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from fractions import Fraction

from app.core.belief._membership import DisplayedPair, membership, true_set_size
from app.core.kapr import SIDES, count_pair, disclosed

__all__ = [
    "MODELS",
    "DisplayedPair",
    "RowAudit",
    "StateAudit",
    "StateSummary",
    "audit_pair",
    "audit_state",
    "summarise",
]

MODELS = ("row", "pair")


@dataclass(frozen=True, slots=True)
class RowAudit:
    """The audit of one displayed row (side 0 = the pair's record A, 1 = record B)."""

    pair: object
    row: int
    model: str
    k: int  # |C| under ``model``
    ks: dict  # model -> |C| for every model computed
    true_in_candidates: bool
    true_set_size: int  # |T|
    true_set_covered: int  # |T ∩ C|
    disclosed: Fraction  # Σ_j p_ij

    @property
    def compatible(self) -> bool:
        """Definition 7 for ``m(C) = 1`` against P uniform on T: ``T ⊆ C``."""
        return self.true_set_covered == self.true_set_size

    @property
    def max_violation(self) -> Fraction:
        """``max_A (Bel(A) − P(A)) = 1 − |T ∩ C| / |T|`` (0 when compatible)."""
        return 1 - Fraction(self.true_set_covered, self.true_set_size)

    @property
    def true_probability(self) -> Fraction:
        """Pignistic probability of the true record: ``1/k`` if it is a candidate, else 0."""
        return Fraction(1, self.k) if self.true_in_candidates else Fraction(0)

    @property
    def argmax_outside_true_set(self) -> bool:
        """Proposition 19: every pignistic maximiser lies outside T (here iff T ∩ C = ∅)."""
        return self.true_set_covered == 0

    @property
    def nonspecificity_bits(self) -> float:
        return math.log2(self.k) if self.k else 0.0

    @property
    def nonspecificity_nats(self) -> float:
        return math.log(self.k) if self.k else 0.0

    def kapr_term(self, scale: Fraction) -> Fraction:
        """``scale · Σ_j p_ij / k`` with ``scale = kappa/(N·D)``; 0 for a row disclosing nothing."""
        return scale * self.disclosed / self.k if self.disclosed else Fraction(0)


@dataclass(frozen=True)
class StateSummary:
    rows: int
    mean_true_probability: Fraction
    max_true_probability: Fraction
    rows_below_kappa: int
    unique_rows: int
    incompatible_rows: int
    argmax_outside_rows: int
    nonspecificity_bits: float  # Σ over rows
    kapr: Fraction


@dataclass(frozen=True)
class StateAudit:
    model: str
    kappa: int
    scale: Fraction  # kappa / (N·D)
    rows: list[RowAudit]
    summary: StateSummary


def _k(pair: DisplayedPair, side_number: int, model: str) -> int:
    side, other = SIDES[side_number], SIDES[1 - side_number]
    index, partner_index = pair.indexes[side_number], pair.indexes[1 - side_number]
    if model == "row":
        return index.count(pair.view.row(side))
    return count_pair(pair.view.row(side), pair.view.row(other), pair.view.markers, side,
                      index, partner_index)  # fmt: skip


def audit_pair(
    pair: DisplayedPair,
    model: str = "row",
    models: Iterable[str] = MODELS,
    cache: dict | None = None,
) -> tuple[RowAudit, RowAudit]:
    """Audit both rows of one displayed pair under ``model`` (``models``: also report k)."""
    if model not in MODELS:
        raise ValueError(f"unknown evidence model {model!r} (row or pair)")
    cache = {} if cache is None else cache
    wanted = list(dict.fromkeys([model, *models]))
    out = []
    for number in (0, 1):
        index, t = pair.indexes[number], pair.truth[number]
        true_size = true_set_size(index, t, cache)
        inside, covered = membership(pair, number, model, true_size)
        ks = {m: _k(pair, number, m) for m in wanted}
        out.append(
            RowAudit(
                pair=pair.label,
                row=number,
                model=model,
                k=ks[model],
                ks=ks,
                true_in_candidates=inside,
                true_set_size=true_size,
                true_set_covered=covered,
                disclosed=disclosed(pair.view.row(SIDES[number])),
            )
        )
    return out[0], out[1]


def summarise(rows: Sequence[RowAudit], kappa: int, scale: Fraction) -> StateSummary:
    """Totals over the rows: mean and max true-record probability, k below kappa, KAPR."""
    probabilities = [r.true_probability for r in rows]
    return StateSummary(
        rows=len(rows),
        mean_true_probability=sum(probabilities, Fraction(0)) / len(rows) if rows else Fraction(0),
        max_true_probability=max(probabilities, default=Fraction(0)),
        rows_below_kappa=sum(r.k < kappa for r in rows),
        unique_rows=sum(r.k == 1 for r in rows),
        incompatible_rows=sum(not r.compatible for r in rows),
        argmax_outside_rows=sum(r.argmax_outside_true_set for r in rows),
        nonspecificity_bits=math.fsum(r.nonspecificity_bits for r in rows),
        kapr=sum((r.kapr_term(scale) for r in rows), Fraction(0)),
    )


def audit_state(
    pairs: Sequence[DisplayedPair],
    *,
    model: str = "row",
    kappa: int = 1,
    n_attributes: int,
    n_rows: int | None = None,
    models: Iterable[str] = MODELS,
) -> StateAudit:
    """Audit every displayed row of ``pairs`` (an assignment's display, or a pooled one).

    ``n_rows`` is KAPR's N (default: two per pair given); ``n_attributes`` its D.
    """
    n_rows = 2 * len(pairs) if n_rows is None else n_rows
    if kappa < 1 or n_attributes < 1:
        raise ValueError("kappa and the number of attributes must be positive")
    scale = Fraction(kappa, max(n_rows, 1) * n_attributes)
    cache: dict = {}
    models = tuple(models)
    rows = [r for pair in pairs for r in audit_pair(pair, model, models, cache)]
    return StateAudit(model, kappa, scale, rows, summarise(rows, kappa, scale))
