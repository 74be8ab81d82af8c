"""Chart specs of a state audit (app.charts contract): per row, distribution, over reveals."""

from __future__ import annotations

from app import charts
from app.analytics.belief.trail import TrailStep

SIDE = ("A", "B")


def _labels(audit: dict) -> list[str]:
    return [f"pair {r['pair']} · {SIDE[r['row']]}" for r in audit["rows"]]


def _per_row(audit: dict, title: str, series: str, values: list, y_title: str) -> dict:
    return charts.bar(
        title, _labels(audit), [charts.Series(series, values)], x_title="Displayed row",
        y_title=y_title,
    )  # fmt: skip


def true_probability_per_row(audit: dict) -> dict:
    values = [r["true_probability"]["float"] for r in audit["rows"]]
    return _per_row(audit, "Probability of the true record per row", "P(true record)", values,
                    "Pignistic probability")  # fmt: skip


def true_probability_distribution(audit: dict) -> dict:
    return charts.histogram(
        "Distribution of the true record's probability",
        (r["true_probability"]["float"] for r in audit["rows"]),
        bins=10,
        lo=0.0,
        hi=1.0,
        x_title="Pignistic probability of the true record",
        y_title="Rows",
        label="Rows",
    )


def nonspecificity_per_row(audit: dict) -> dict:
    values = [r["nonspecificity"]["bits"] for r in audit["rows"]]
    return _per_row(audit, "Non-specificity N per row", "N (bits) = log2 k", values, "Bits")


def kapr_against_probability(trails: dict[str, list[TrailStep]]) -> dict:
    series = [
        charts.Series(
            name,
            [
                {
                    "x": float(s.kapr_charged),
                    "y": float(s.mean_true_probability),
                    "label": "start" if s.event is None else f"reveal {number}",
                }
                for number, s in enumerate(steps)
            ],  # fmt: skip
        )
        for name, steps in trails.items()
    ]
    return charts.scatter(
        "KAPR against mean probability of the true record, reveal by reveal",
        series,
        x_title="KAPR charged",
        y_title="Mean P(true record)",
    )


CHARTS = {
    "rows": true_probability_per_row,
    "distribution": true_probability_distribution,
    "nonspecificity": nonspecificity_per_row,
}
