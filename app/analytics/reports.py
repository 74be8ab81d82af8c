"""The KAPR report: privacy risk spent per assignment, per project and per worker.

Aggregates only (KAPR, characters disclosed, reveal counts): a report never carries a value a
worker revealed. KAPR sums stay exact fractions; budgets are stored as floats and read as
the decimal they were written as (``0.1`` is 1/10).
"""

from __future__ import annotations

import csv
import io
from dataclasses import asdict, dataclass, fields
from fractions import Fraction

from sqlalchemy import func, select

from app import charts
from app.extensions import db
from app.models import Assignment, AssignmentPair, Pair, Project, RevealEvent, User
from app.projects.exports import neutralize


@dataclass(frozen=True)
class RiskRow:
    """KAPR spent against budget over one assignment, or a sum of them."""

    project: str
    worker: str
    assignments: int
    pairs: int
    kapr: Fraction
    budget: Fraction
    chars_disclosed: int
    chars_total: int
    reveals: int

    @property
    def budget_percent(self) -> float | None:
        """KAPR spent as a percentage of the budget (None for a zero budget)."""
        return float(self.kapr / self.budget * 100) if self.budget else None

    @property
    def chars_percent(self) -> float | None:
        """Characters disclosed as a percentage of all characters of the pairs."""
        return self.chars_disclosed / self.chars_total * 100 if self.chars_total else None

    def as_dict(self) -> dict:
        row = asdict(self)
        row.update(kapr=str(self.kapr), budget=str(self.budget))
        row.update(budget_percent=self.budget_percent, chars_percent=self.chars_percent)
        return row


@dataclass(frozen=True)
class KaprReport:
    assignments: list[RiskRow]
    projects: list[RiskRow]
    workers: list[RiskRow]
    project_pairs: dict[str, int]

    def as_dict(self) -> dict:
        return {
            "assignments": [r.as_dict() for r in self.assignments],
            "projects": [
                {**r.as_dict(), "project_pairs": self.project_pairs.get(r.project, 0)}
                for r in self.projects
            ],
            "workers": [r.as_dict() for r in self.workers],
        }


def _counts(column, key) -> dict[int, int]:
    rows = db.session.execute(select(key, func.count(column)).group_by(key))
    return {k: n for k, n in rows}


def _sum(rows: list[RiskRow], project: str, worker: str) -> RiskRow:
    return RiskRow(
        project=project,
        worker=worker,
        assignments=sum(r.assignments for r in rows),
        pairs=sum(r.pairs for r in rows),
        kapr=sum((r.kapr for r in rows), Fraction(0)),
        budget=sum((r.budget for r in rows), Fraction(0)),
        chars_disclosed=sum(r.chars_disclosed for r in rows),
        chars_total=sum(r.chars_total for r in rows),
        reveals=sum(r.reveals for r in rows),
    )


def _group(rows: list[RiskRow], by: str) -> list[RiskRow]:
    groups: dict[str, list[RiskRow]] = {}
    for row in rows:
        groups.setdefault(getattr(row, by), []).append(row)
    return [
        _sum(members, name if by == "project" else "(all)", name if by == "worker" else "(all)")
        for name, members in sorted(groups.items())
    ]


def kapr_report() -> KaprReport:
    """Build the report over every assignment, in project then worker order."""
    pairs = _counts(AssignmentPair.pair_id, AssignmentPair.assignment_id)
    reveals = _counts(RevealEvent.id, RevealEvent.assignment_id)
    query = (
        select(Assignment, Project.name, User.username)
        .join(Project, Assignment.project_id == Project.id)
        .join(User, Assignment.worker_id == User.id)
        .order_by(Project.name, Project.id, User.username)
    )
    rows = [
        RiskRow(
            project=f"{name} (#{a.project_id})",
            worker=username,
            assignments=1,
            pairs=pairs.get(a.id, 0),
            kapr=Fraction(a.kapr_exact),
            budget=Fraction(repr(a.budget)),
            chars_disclosed=a.chars_disclosed,
            chars_total=a.chars_total,
            reveals=reveals.get(a.id, 0),
        )
        for a, name, username in db.session.execute(query)
    ]
    project_pairs = {
        f"{name} (#{pid})": n
        for pid, name, n in db.session.execute(
            select(Project.id, Project.name, func.count(Pair.id))
            .join(Pair, Pair.project_id == Project.id)
            .group_by(Project.id, Project.name)
        )
    }
    return KaprReport(rows, _group(rows, "project"), _group(rows, "worker"), project_pairs)


CSV_COLUMNS = [f.name for f in fields(RiskRow)] + ["budget_percent", "chars_percent"]


def kapr_csv(report: KaprReport) -> str:
    """The per-assignment rows as CSV (exact fractions as ``p/q``; no cell is a formula)."""
    out = io.StringIO()
    writer = csv.DictWriter(out, CSV_COLUMNS, lineterminator="\n")
    writer.writeheader()
    for row in report.assignments:
        writer.writerow({k: neutralize(v) for k, v in row.as_dict().items()})
    return out.getvalue()


def assignment_chart(report: KaprReport) -> dict:
    """KAPR spent beside the budget of each assignment (one bar pair per assignment)."""
    labels = [f"{r.project} · {r.worker}" for r in report.assignments]
    return charts.bar(
        "KAPR spent against budget per assignment",
        labels,
        [
            charts.Series("KAPR spent", [float(r.kapr) for r in report.assignments]),
            charts.Series("Budget", [float(r.budget) for r in report.assignments]),
        ],
        x_title="Assignment",
        y_title="KAPR",
    )
