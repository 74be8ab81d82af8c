"""KAPR over projects and workers: the report, and what a project's workers saw together."""

from app.analytics.kapr.collusion import (
    assess_states,
    attributes_of,
    collusion_kapr,
    pooled_state,
    score_states,
)
from app.analytics.kapr.reports import (
    CSV_COLUMNS,
    assignment_chart,
    kapr_csv,
    kapr_report,
    project_chart,
)

__all__ = [
    "CSV_COLUMNS",
    "assess_states",
    "assignment_chart",
    "attributes_of",
    "collusion_kapr",
    "kapr_csv",
    "kapr_report",
    "pooled_state",
    "project_chart",
    "score_states",
]
