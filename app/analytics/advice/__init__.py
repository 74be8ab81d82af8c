"""Disclosure policies side by side: the figures of bench/advisor.py, charted for admins."""

from app.analytics.advice.report import (
    CSV_COLUMNS,
    FIGURES,
    accuracy_chart,
    datasets,
    figures_csv,
    kapr_chart,
    load_figures,
)

__all__ = [
    "CSV_COLUMNS",
    "FIGURES",
    "accuracy_chart",
    "datasets",
    "figures_csv",
    "kapr_chart",
    "load_figures",
]
