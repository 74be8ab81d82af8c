"""The admins' report of disclosure policies (docs/advice.md §5): per dataset, accuracy against
the share of characters shown for every policy under both reviewer models, with the CHI 2018
study's participants (the paper's table) on the same axes, and KAPR per policy.

The figures are those of the last full run of ``bench/advisor.py --write`` (``figures.json``
beside this module, with its date and machine): the FEBRL4 band needs a Splink training, too
long for a page. Aggregates of simulated reviews only: no record value is in them.
"""

from __future__ import annotations

import json
from functools import lru_cache
from pathlib import Path

from app import charts

__all__ = [
    "CSV_COLUMNS",
    "FIGURES",
    "accuracy_chart",
    "datasets",
    "figures_csv",
    "kapr_chart",
    "load_figures",
]

FIGURES = Path(__file__).with_name("figures.json")
CSV_COLUMNS = (
    "dataset",
    "reviewer",
    "policy",
    "accuracy",
    "characters",
    "kapr",
    "reveals",
    "pairs",
)
_REVIEWERS = {"human": "Human model", "evidence": "Evidence model"}


@lru_cache(maxsize=2)
def load_figures(path: Path = FIGURES) -> dict:
    """The stored figures (``{"date", "machine", "study", "rows"}``), or empty ones."""
    if not path.exists():
        return {"date": None, "machine": None, "study": [], "rows": []}
    return json.loads(path.read_text(encoding="utf-8"))


def datasets(figures: dict) -> list[str]:
    """The datasets, in the bench's order."""
    return list(dict.fromkeys(r["dataset"] for r in figures["rows"]))


def accuracy_chart(figures: dict, dataset: str) -> dict:
    """Accuracy against characters shown, one point per policy and reviewer model."""
    rows = [r for r in figures["rows"] if r["dataset"] == dataset]
    series = [
        charts.Series(
            label,
            [
                {"x": r["characters"], "y": r["accuracy"], "label": r["policy"]}
                for r in rows
                if r["reviewer"] == reviewer
            ],
        )
        for reviewer, label in _REVIEWERS.items()
    ]
    series.append(
        charts.Series(
            "CHI 2018 participants (the paper, 104 people)",
            [
                {"x": s["characters"], "y": s["accuracy"], "label": s["mode"]}
                for s in figures["study"]
            ],
        )
    )
    return charts.scatter(
        f"{dataset}: accuracy against characters shown",
        series,
        x_title="Characters shown (%)",
        y_title="Accuracy (%)",
    )


def kapr_chart(figures: dict, dataset: str) -> dict:
    """Mean KAPR per pair of each policy under each reviewer model."""
    rows = [r for r in figures["rows"] if r["dataset"] == dataset]
    policies = list(dict.fromkeys(r["policy"] for r in rows))
    value = {(r["reviewer"], r["policy"]): r["kapr"] for r in rows}
    return charts.bar(
        f"{dataset}: KAPR per pair",
        policies,
        [
            charts.Series(label, [value.get((reviewer, p)) for p in policies])
            for reviewer, label in _REVIEWERS.items()
        ],
        x_title="Policy",
        y_title="% of the maximum KAPR",
    )


def figures_csv(figures: dict) -> tuple[list[str], list[list]]:
    """Every row of the figures, for the CSV download."""
    return list(CSV_COLUMNS), [[r[c] for c in CSV_COLUMNS] for r in figures["rows"]]
