"""Risk against utility: each worker's accuracy beside their KAPR, scored on the ground truth."""

from app.analytics.utility.risk_utility import (
    CSV_HEADER,
    Confusion,
    confusion,
    csv_rows,
    risk_utility,
    utility_charts,
)
from app.analytics.utility.truth import (
    TruthError,
    default_truth_column,
    resolve_truth,
    truth_from_file,
    truth_from_vault,
)

__all__ = [
    "CSV_HEADER",
    "Confusion",
    "TruthError",
    "confusion",
    "csv_rows",
    "default_truth_column",
    "resolve_truth",
    "risk_utility",
    "truth_from_file",
    "truth_from_vault",
    "utility_charts",
]
