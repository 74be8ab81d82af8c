"""The KAPR report: privacy risk spent per assignment, per project and per worker.

Aggregates only (KAPR, characters disclosed, reveal counts): a report never carries a value a
worker revealed. KAPRs stay exact fractions; budgets are stored as floats and read as the
decimal they were written as (``0.1`` is 1/10). KAPRs are never summed: each is normalised by
its own display's rows, so a project shows its largest assignment's KAPR and the KAPR of all
its assignments pooled (as if the workers colluded, :mod:`app.analytics.kapr.collusion`).
"""

from __future__ import annotations

import io
from dataclasses import asdict, dataclass, fields
from fractions import Fraction

from sqlalchemy import func, select

from app import charts, csvsafe
from app.analytics.kapr.collusion import pooled_state, score_states
from app.extensions import db
from app.models import Assignment, AssignmentPair, Pair, Project, RevealEvent, User


@dataclass(frozen=True)
class RiskRow:
    """KAPR spent against budget over one assignment."""

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
class ProjectRisk:
    """One project's risk: the largest assignment's KAPR and the KAPR of all of them pooled.

    Never a sum of KAPRs: each assignment's KAPR is normalised by its own number of rows.
    ``collusion`` is the KAPR of what all of the project's assignments saw together
    (:func:`app.analytics.kapr.collusion.collusion_kapr`), ``None`` when no pair was assigned.
    """

    project: str
    assignments: int
    project_pairs: int
    pooled_pairs: int
    max_kapr: Fraction
    max_budget: Fraction  # the budget of the assignment with the largest KAPR
    collusion: Fraction | None
    collusion_within_bound: bool | None
    reveals: int

    def as_dict(self) -> dict:
        return {
            "project": self.project,
            "assignments": self.assignments,
            "project_pairs": self.project_pairs,
            "pooled_pairs": self.pooled_pairs,
            "max_kapr": exact(self.max_kapr),
            "max_budget": exact(self.max_budget),
            "collusion_kapr": None if self.collusion is None else exact(self.collusion),
            "collusion_within_bound": self.collusion_within_bound,
            "reveals": self.reveals,
        }


@dataclass(frozen=True)
class WorkerRisk:
    """One worker over their assignments: how many, the largest KAPR and budget use, reveals."""

    worker: str
    assignments: int
    max_kapr: Fraction
    max_budget_percent: float | None
    reveals: int

    def as_dict(self) -> dict:
        return {**asdict(self), "max_kapr": exact(self.max_kapr)}


def exact(value: Fraction) -> dict:
    """An exact fraction as ``{"exact": "p/q", "float": x}``."""
    return {"exact": str(value), "float": float(value)}


@dataclass(frozen=True)
class KaprReport:
    assignments: list[RiskRow]
    projects: list[ProjectRisk]
    workers: list[WorkerRisk]

    def as_dict(self) -> dict:
        return {
            "assignments": [r.as_dict() for r in self.assignments],
            "projects": [r.as_dict() for r in self.projects],
            "workers": [r.as_dict() for r in self.workers],
        }


def _counts(column, key) -> dict[int, int]:
    rows = db.session.execute(select(key, func.count(column)).group_by(key))
    return {k: n for k, n in rows}


def _real_reveals() -> dict[int, int]:
    """Reveals per assignment of its project's own pairs (a synthetic check shows nobody)."""
    rows = db.session.execute(
        select(RevealEvent.assignment_id, func.count(RevealEvent.id))
        .join(Assignment, Assignment.id == RevealEvent.assignment_id)
        .join(Pair, Pair.id == RevealEvent.pair_id)
        .where(Pair.project_id == Assignment.project_id)
        .group_by(RevealEvent.assignment_id)
    )
    return {k: n for k, n in rows}


def _label(project: Project) -> str:
    return f"{project.name} (#{project.id})"


def _project_risk(project: Project, rows: list[RiskRow], project_pairs: int) -> ProjectRisk:
    top = max(rows, key=lambda r: r.kapr, default=None)
    # A closed-out project's values are destroyed: its pooled disclosure cannot be rebuilt,
    # so its collusion KAPR is unknown (None) rather than computed from nothing.
    pooled = None if project.closed else pooled_state(project, disclosed_only=True)
    score = (
        None
        if pooled is None
        else score_states(project, pooled.pairs, pooled.states, pooled.n_pairs)
    )
    return ProjectRisk(
        project=_label(project),
        assignments=len(rows),
        project_pairs=project_pairs,
        pooled_pairs=0 if pooled is None else pooled.n_pairs,
        max_kapr=top.kapr if top else Fraction(0),
        max_budget=top.budget if top else Fraction(0),
        collusion=None if score is None else score.value,
        collusion_within_bound=None if score is None else score.within_bound,
        reveals=sum(r.reveals for r in rows),
    )


def _worker_risk(worker: str, rows: list[RiskRow]) -> WorkerRisk:
    used = [r.budget_percent for r in rows if r.budget_percent is not None]
    return WorkerRisk(
        worker=worker,
        assignments=len(rows),
        max_kapr=max(r.kapr for r in rows),
        max_budget_percent=max(used, default=None),
        reveals=sum(r.reveals for r in rows),
    )


def kapr_report() -> KaprReport:
    """Build the report over every assignment, in project then worker order."""
    pairs = _counts(AssignmentPair.pair_id, AssignmentPair.assignment_id)
    reveals = _real_reveals()
    query = (
        select(Assignment, Project, User.username)
        .join(Project, Assignment.project_id == Project.id)
        .join(User, Assignment.worker_id == User.id)
        .order_by(Project.name, Project.id, User.username)
    )
    rows, by_project, by_worker = [], {}, {}
    for a, project, username in db.session.execute(query):
        row = RiskRow(
            project=_label(project),
            worker=username,
            assignments=1,
            pairs=pairs.get(a.id, 0) - a.synthetic_pairs,  # real pairs: N of its KAPR
            kapr=Fraction(a.kapr_exact),
            budget=Fraction(repr(a.budget)),
            chars_disclosed=a.chars_disclosed,
            chars_total=a.chars_total,
            reveals=reveals.get(a.id, 0),
        )
        rows.append(row)
        by_project.setdefault(project.id, (project, []))[1].append(row)
        by_worker.setdefault(username, []).append(row)
    project_pairs = _counts(Pair.id, Pair.project_id)
    projects = [
        _project_risk(project, members, project_pairs.get(pid, 0))
        for pid, (project, members) in by_project.items()
    ]
    workers = [_worker_risk(name, members) for name, members in sorted(by_worker.items())]
    return KaprReport(rows, projects, workers)


CSV_COLUMNS = [f.name for f in fields(RiskRow)] + ["budget_percent", "chars_percent"]


def kapr_csv(report: KaprReport) -> str:
    """The per-assignment rows as CSV (exact fractions as ``p/q``; no cell is a formula)."""
    out = io.StringIO()
    writer = csvsafe.writer(out, lineterminator="\n")
    writer.writerow(CSV_COLUMNS)
    for row in report.assignments:
        cells = row.as_dict()
        writer.writerow([cells.get(column) for column in CSV_COLUMNS])
    return out.getvalue()


def assignment_chart(report: KaprReport) -> dict:
    """KAPR spent beside the budget of each assignment (one bar pair per assignment)."""
    labels = [f"{r.project} · {r.worker}" for r in report.assignments]
    return charts.bar(
        "KAPR spent against budget per assignment",
        labels,
        [
            charts.Series("KAPR spent (%)", [float(100 * r.kapr) for r in report.assignments]),
            charts.Series("Budget (%)", [float(100 * r.budget) for r in report.assignments]),
        ],
        x_title="Assignment",
        y_title="% of the maximum KAPR",
    )


def project_chart(report: KaprReport) -> dict:
    """Per project: the largest assignment's KAPR beside the KAPR of all of them pooled."""
    rows = report.projects
    labels = [r.project for r in rows]
    return charts.bar(
        "Largest assignment KAPR and collusion KAPR per project",
        labels,
        [
            charts.Series(
                "Largest assignment KAPR (%)", [float(100 * r.max_kapr) for r in report.projects]
            ),
            charts.Series(
                "Collusion KAPR, all assignments pooled (%)",
                [
                    None if r.collusion is None else float(100 * r.collusion)
                    for r in report.projects
                ],
            ),
        ],
        x_title="Project",
        y_title="% of the maximum KAPR",
    )
