"""The measures of a release, each computed by its private module, named here for the app.

- :func:`sample_risk`, :func:`risk_histogram`, :func:`k_target` (``_sample``): k-anonymity,
  prosecutor/journalist/marketer risk as ARX's ``RiskModelSampleSummary``, ARX's risk bins;
- :func:`population_uniqueness` (``_population``): Zayatz, Pitman, SNB, Dankar's rule as ARX's
  ``RiskModelPopulationUniqueness``;
- :func:`diversity` (``_diversity``): l-diversity (distinct, entropy, recursive (c, 2)) and
  t-closeness of one sensitive attribute.
"""

from __future__ import annotations

from app.core.release._diversity import Diversity, diversity
from app.core.release._population import PopulationUniqueness, population_uniqueness
from app.core.release._sample import (
    MIN_THRESHOLD,
    RISK_BINS,
    AttackerRisk,
    SampleRisk,
    k_target,
    risk_histogram,
    sample_risk,
)

__all__ = [
    "MIN_THRESHOLD",
    "RISK_BINS",
    "AttackerRisk",
    "Diversity",
    "PopulationUniqueness",
    "SampleRisk",
    "diversity",
    "k_target",
    "population_uniqueness",
    "risk_histogram",
    "sample_risk",
]
