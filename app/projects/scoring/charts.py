"""Pictures of a model: the match weight of every comparison level (Splink's own chart, drawn
with the application's chart library), and m and u per level. Parameters only, no value."""

from __future__ import annotations

import math

from app import charts
from app.projects.scoring.model.definition import Model

__all__ = ["level_rows", "m_u_chart", "match_weights_chart"]


def _weight(m, u) -> float | None:
    if not isinstance(m, float | int) or not isinstance(u, float | int) or m <= 0 or u <= 0:
        return None
    return math.log2(m / u)


def level_rows(model: Model) -> list[dict]:
    """One row per level that counts (not the null levels): comparison, level, m, u, weight."""
    rows = []
    for comparison in model.comparisons:
        for index, level in enumerate(comparison.levels):
            if level.is_null:
                continue
            rows.append({
                "comparison": comparison.name,
                "level": level.label or ("else" if level.condition is None else f"level {index}"),
                "m": level.m if isinstance(level.m, float | int) else None,
                "u": level.u if isinstance(level.u, float | int) else None,
                "weight": _weight(level.m, level.u),
            })  # fmt: skip
    return rows


def prior_weight(model: Model) -> float:
    """Match weight of the prior: log2 of λ's odds."""
    p = model.probability
    return math.log2(p / (1 - p)) if 0 < p < 1 else float("inf")


def match_weights_chart(model: Model) -> dict:
    """Splink's match weights chart: the prior, then each comparison level's weight."""
    rows = level_rows(model)
    labels = ["prior (λ)"] + [f"{r['comparison']}: {r['level']}" for r in rows]
    return charts.bar(
        "Match weight per comparison level",
        labels,
        [
            charts.Series(
                "Match weight (log2 m/u)", [prior_weight(model)] + [r["weight"] for r in rows]
            )
        ],
        x_title="Comparison level",
        y_title="Match weight",
    )


def m_u_chart(model: Model) -> dict:
    """m and u probabilities of every level (Splink's m_u_parameters_chart)."""
    rows = level_rows(model)
    return charts.bar(
        "m and u probability per comparison level",
        [f"{r['comparison']}: {r['level']}" for r in rows],
        [charts.Series("m (among matches)", [r["m"] for r in rows]),
         charts.Series("u (among non-matches)", [r["u"] for r in rows])],
        x_title="Comparison level",
        y_title="Probability",
    )  # fmt: skip
