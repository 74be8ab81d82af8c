"""Release risk: re-identification risk of a de-identified table (ARX's models), l-diversity."""

from app.core.release.classes import (
    CONVENTIONS,
    Classes,
    SensitiveColumn,
    build_classes,
    population_sizes,
)
from app.core.release.measures import (
    MIN_THRESHOLD,
    RISK_BINS,
    AttackerRisk,
    Diversity,
    PopulationUniqueness,
    SampleRisk,
    diversity,
    k_target,
    population_uniqueness,
    risk_histogram,
    sample_risk,
)
from app.core.release.report import (
    DRIVERS,
    ReleaseRisk,
    RiskClass,
    assess_release,
    size_histogram,
)

__all__ = [
    "CONVENTIONS",
    "DRIVERS",
    "MIN_THRESHOLD",
    "RISK_BINS",
    "AttackerRisk",
    "Classes",
    "Diversity",
    "PopulationUniqueness",
    "ReleaseRisk",
    "RiskClass",
    "SampleRisk",
    "SensitiveColumn",
    "assess_release",
    "build_classes",
    "diversity",
    "k_target",
    "population_sizes",
    "population_uniqueness",
    "risk_histogram",
    "sample_risk",
    "size_histogram",
]
