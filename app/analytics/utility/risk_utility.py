"""Risk against utility: each worker's accuracy, precision and recall beside the KAPR spent.

A worker's answers are their newest decision per pair (:func:`app.projects.progress.outcomes`);
only ``same`` and ``different`` on pairs with known truth count (``unsure`` and unanswered
pairs are neither right nor wrong, and are reported as ``unscored``). With ``same`` as the
positive class: accuracy = (TP + TN) / scored, precision = TP / (TP + FP), recall =
TP / (TP + FN); each is ``None`` when its denominator is 0. A manager's resolver assignment
answers nothing and is left out.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from fractions import Fraction

from sqlalchemy import select

from app import charts
from app.extensions import db
from app.models import Assignment, Project, User
from app.projects.progress.outcomes import outcomes

__all__ = ["Confusion", "WorkerUtility", "confusion", "risk_utility", "utility_charts"]


@dataclass(frozen=True)
class Confusion:
    tp: int = 0
    fp: int = 0
    tn: int = 0
    fn: int = 0

    @property
    def scored(self) -> int:
        return self.tp + self.fp + self.tn + self.fn

    @property
    def accuracy(self) -> float | None:
        return (self.tp + self.tn) / self.scored if self.scored else None

    @property
    def precision(self) -> float | None:
        return self.tp / (self.tp + self.fp) if self.tp + self.fp else None

    @property
    def recall(self) -> float | None:
        return self.tp / (self.tp + self.fn) if self.tp + self.fn else None


def confusion(answers: Iterable[tuple[str | None, bool | None]]) -> Confusion:
    """Count ``(decision, truth)`` pairs; a pair without a same/different answer or truth is
    skipped."""
    tp = fp = tn = fn = 0
    for decision, truth in answers:
        if truth is None or decision not in ("same", "different"):
            continue
        said = decision == "same"
        tp += said and truth
        fp += said and not truth
        tn += not said and not truth
        fn += not said and truth
    return Confusion(tp, fp, tn, fn)


@dataclass(frozen=True)
class WorkerUtility:
    worker: str
    assignment_id: int
    pairs: int
    unscored: int
    confusion: Confusion
    kapr: Fraction
    budget: float
    chars_disclosed: int
    chars_total: int

    @property
    def chars_percent(self) -> float | None:
        return 100 * self.chars_disclosed / self.chars_total if self.chars_total else None

    def as_dict(self) -> dict:
        c = self.confusion
        return {
            "worker": self.worker,
            "assignment": self.assignment_id,
            "pairs": self.pairs,
            "scored": c.scored,
            "unscored": self.unscored,
            "tp": c.tp,
            "fp": c.fp,
            "tn": c.tn,
            "fn": c.fn,
            "accuracy": c.accuracy,
            "precision": c.precision,
            "recall": c.recall,
            "kapr": {"exact": str(self.kapr), "float": float(self.kapr)},
            "budget": self.budget,
            "chars_disclosed": self.chars_disclosed,
            "chars_total": self.chars_total,
            "chars_percent": self.chars_percent,
        }


CSV_HEADER = [
    "worker", "assignment", "pairs", "scored", "unscored", "tp", "fp", "tn", "fn", "accuracy",
    "precision", "recall", "kapr_exact", "kapr", "budget", "chars_disclosed", "chars_total",
    "chars_percent",
]  # fmt: skip


def csv_rows(rows: list[WorkerUtility]) -> list[list]:
    """The rows of the CSV download, in :data:`CSV_HEADER` order."""
    out = []
    for row in rows:
        d = row.as_dict()
        flat = {**d, "kapr_exact": d["kapr"]["exact"], "kapr": d["kapr"]["float"]}
        out.append([flat[h] for h in CSV_HEADER])
    return out


def risk_utility(project: Project, truth: Mapping[int, bool]) -> list[WorkerUtility]:
    """Each worker's scores against ``truth`` (``{pair id: same?}``), in assignment order."""
    answers: dict[int, list[tuple[str | None, bool | None]]] = {}
    for outcome in outcomes(project.id).values():
        for answer in outcome.answers:
            pair_truth = truth.get(outcome.pair_id)
            answers.setdefault(answer.assignment_id, []).append((answer.decision, pair_truth))
    rows = db.session.execute(
        select(Assignment, User.username)
        .join(User, User.id == Assignment.worker_id)
        .where(Assignment.project_id == project.id, Assignment.resolver.is_(False))
        .order_by(Assignment.id)
    ).tuples()
    result = []
    for assignment, username in rows:
        mine = answers.get(assignment.id, [])
        counted = confusion(mine)
        result.append(
            WorkerUtility(
                username,
                assignment.id,
                len(mine),
                len(mine) - counted.scored,
                counted,
                Fraction(assignment.kapr_exact),
                assignment.budget,
                assignment.chars_disclosed,
                assignment.chars_total,
            )  # fmt: skip
        )
    return result


def utility_charts(rows: list[WorkerUtility]) -> dict[str, dict]:
    """Accuracy, precision and recall per worker (one point each) against KAPR and characters."""

    def points(x, metric):
        return [
            {"x": x(r), "y": getattr(r.confusion, metric), "label": r.worker}
            for r in rows
            if getattr(r.confusion, metric) is not None and x(r) is not None
        ]

    def series(x):
        return [
            charts.Series(name.capitalize(), points(x, name))
            for name in ("accuracy", "precision", "recall")
        ]

    return {
        "kapr": charts.scatter(
            "Accuracy, precision and recall against KAPR spent",
            series(lambda r: float(100 * r.kapr)),
            x_title="KAPR spent (% of the maximum KAPR)",
            y_title="Score (0–1)",
        ),
        "characters": charts.scatter(
            "Accuracy, precision and recall against characters disclosed",
            series(lambda r: r.chars_percent),
            x_title="Characters disclosed (%)",
            y_title="Score (0–1)",
        ),
    }
