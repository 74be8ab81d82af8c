"""The quality page's charts and its CSV rows, from the reviewers' figures."""

from __future__ import annotations

from app import charts
from app.projects.quality.reviewers import CHAR_BINS, ProjectQuality

__all__ = ["CSV_HEADER", "csv_rows", "quality_charts"]

CSV_HEADER = [
    "worker", "decisions", "checks_answered", "checks_wrong", "accuracy", "accuracy_low",
    "accuracy_high", "discordance", "discordance_adjudicated", "adjudicated",
    "seconds_per_decision", "decisions_per_hour", "past_break", "flagged", "flagged_after",
    "kappa",
]  # fmt: skip


def csv_rows(found: ProjectQuality) -> list[list]:
    """One row per reviewer; ``kappa`` as ``other=value`` pairs joined by ``;``."""
    rows = []
    for r in found.reviewers:
        kappa = ";".join(f"{o}={'' if k is None else round(k, 6)}" for o, k in r.kappa.items())
        c = r.checks
        rows.append([
            r.worker, r.decisions, c.trials, r.checks_wrong, c.value, c.low, c.high,
            r.discordance, r.against_adjudicated, r.adjudicated, r.seconds_per_decision,
            r.decisions_per_hour, r.past_break, r.flagged, r.flagged_after, kappa,
        ])  # fmt: skip
    return rows


def quality_charts(found: ProjectQuality) -> dict[str, dict]:
    """The page's pictures: accuracy on checks with its interval, discordance, pace, and
    accuracy against the characters disclosed (the study's curve, one line per reviewer)."""
    names = [r.worker for r in found.reviewers]
    pct = lambda v: None if v is None else round(100 * v, 2)  # noqa: E731
    accuracy = charts.bar(
        "Accuracy on known-truth checks",
        names,
        [
            charts.Series("accuracy %", [pct(r.checks.value) for r in found.reviewers]),
            charts.Series("95% interval, low", [pct(r.checks.low) if r.checks.trials else None
                                                 for r in found.reviewers]),
            charts.Series("95% interval, high", [pct(r.checks.high) if r.checks.trials else None
                                                  for r in found.reviewers]),
        ],
        x_title="Reviewer",
        y_title="% of checks answered right",
    )  # fmt: skip
    discordance = charts.bar(
        "Discordance",
        names,
        [
            charts.Series("with the other coders %", [pct(r.discordance) for r in found.reviewers]),
            charts.Series(
                "with the adjudicated answer %",
                [pct(r.against_adjudicated) for r in found.reviewers],
            ),
        ],
        x_title="Reviewer",
        y_title="% of pairs answered otherwise",
    )
    rates = [r.decisions_per_hour and round(r.decisions_per_hour, 1) for r in found.reviewers]
    pace = charts.bar(
        "Decisions per hour",
        names,
        [charts.Series("decisions per hour", rates)],
        x_title="Reviewer",
        y_title="Decisions per hour of reviewing",
    )  # fmt: skip
    bins = [
        f"{lo}" if lo == hi else f"{lo}+" if hi is None else f"{lo}-{hi}" for lo, hi in CHAR_BINS
    ]
    by_characters = charts.line(
        "Accuracy against characters disclosed",
        [charts.Series(r.worker, [pct(i.value) for i in r.by_characters]) for r in found.reviewers],
        x_title="Characters the reviewer disclosed of the pair",
        y_title="% answered right (pairs with a known answer)",
        labels=bins,
    )
    return {"accuracy": accuracy, "discordance": discordance, "pace": pace,
            "characters": by_characters}  # fmt: skip
