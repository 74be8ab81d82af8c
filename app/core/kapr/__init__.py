"""KAPR: the score, anonymity-set sizes (``row`` and ``pair`` models) and reveal costs."""

from app.core.kapr.anonymity import AnonymityIndex, Constraint, consistent
from app.core.kapr.costs import SIDES, Model, PairCosts, PairRisk, PairView, Side, disclosed
from app.core.kapr.evidence import Evidence, Marker, Markers, Relation, Row
from app.core.kapr.pair import count_pair, count_pair_reference
from app.core.kapr.score import (
    KaprScore,
    assess_pair,
    disclosure_state,
    kapr,
    kapr_score,
    next_costs,
    pair_risk,
    reveal_cost,
    state_norm,
)

__all__ = [
    "SIDES",
    "AnonymityIndex",
    "Constraint",
    "Evidence",
    "KaprScore",
    "Marker",
    "Markers",
    "Model",
    "PairCosts",
    "PairRisk",
    "PairView",
    "Relation",
    "Row",
    "Side",
    "assess_pair",
    "consistent",
    "count_pair",
    "count_pair_reference",
    "disclosed",
    "disclosure_state",
    "kapr",
    "kapr_score",
    "next_costs",
    "pair_risk",
    "reveal_cost",
    "state_norm",
]
