"""The progress page's charts: KAPR against budget, characters per attribute, reveals, agreement.

Each function returns a chart spec (:mod:`app.charts`), whose table is also its CSV download.
Aggregates only: counts of characters and reveals, never a revealed value.
"""

from __future__ import annotations

import datetime as dt
from collections import Counter
from fractions import Fraction

from sqlalchemy import select
from sqlalchemy.orm import selectinload

from app import charts
from app.core.disclosure import AttributeType, Level
from app.extensions import db
from app.models import Assignment, CellState, Pair, Project, RevealEvent, User
from app.projects.progress.counts import answer_counts
from app.review.grid import Attribute, PairState

__all__ = ["CHARTS", "agreement_chart", "budget_chart", "characters_chart", "reveals_chart"]

LABELS = ("same", "different", "unsure")


def _assignments(project: Project) -> list[tuple[Assignment, str]]:
    return list(
        db.session.execute(
            select(Assignment, User.username)
            .join(User, User.id == Assignment.worker_id)
            .where(Assignment.project_id == project.id, Assignment.resolver.is_(False))
            .order_by(Assignment.id)
        ).tuples()
    )


def budget_chart(project: Project) -> dict:
    """KAPR spent beside the budget of each worker's assignment."""
    rows = _assignments(project)
    return charts.bar(
        "KAPR spent against budget per worker",
        [name for _, name in rows],
        [
            charts.Series("KAPR spent (%)", [100 * Fraction(a.kapr_exact) for a, _ in rows]),
            charts.Series("Budget (%)", [100 * Fraction(repr(a.budget)) for a, _ in rows]),
        ],
        x_title="Worker",
        y_title="% of the maximum KAPR",
    )


def characters_chart(project: Project) -> dict:
    """Characters each worker has seen disclosed, per identifying attribute."""
    attributes = [Attribute(a.id, a.name, AttributeType(a.kind)) for a in project.identifying]
    names = {a.id: a.name for a in attributes}
    rows = _assignments(project)
    series = []
    for assignment, username in rows:
        levels: dict[int, dict] = {}
        for cell in db.session.scalars(
            select(CellState).where(
                CellState.assignment_id == assignment.id, CellState.level != Level.MASKED.value
            )
        ):
            if cell.attribute_id in names:
                levels.setdefault(cell.pair_id, {})[cell.row, names[cell.attribute_id]] = Level(
                    cell.level
                )
        pairs = db.session.scalars(
            select(Pair)  # the project's own: a synthetic check's characters are nobody's
            .where(Pair.id.in_(list(levels)), Pair.project_id == project.id)
            .options(selectinload(Pair.record_a), selectinload(Pair.record_b))
        ).all()
        shown = Counter()
        for pair in pairs:
            values = (pair.record_a.values, pair.record_b.values)
            state = PairState(pair.id, attributes, values, levels[pair.id])
            for row, name in levels[pair.id]:
                shown[name] += state.view(row, name).disclosed
        series.append(charts.Series(username, [shown[a.name] for a in attributes]))
    return charts.bar(
        "Characters disclosed per attribute",
        [a.name for a in attributes],
        series,
        x_title="Attribute",
        y_title="Characters disclosed",
    )


def reveals_chart(project: Project) -> dict:
    """Cumulative reveals per worker over time (by hour, or by day over more than two days)."""
    rows = _assignments(project)
    ids = {a.id: name for a, name in rows}
    events = db.session.execute(
        select(RevealEvent.assignment_id, RevealEvent.at)
        .join(Pair, Pair.id == RevealEvent.pair_id)
        .where(RevealEvent.assignment_id.in_(list(ids)), Pair.project_id == project.id)
        .order_by(RevealEvent.at, RevealEvent.id)
    ).all()
    times = [at for _, at in events]
    hourly = not times or max(times) - min(times) <= dt.timedelta(days=2)
    fmt = "%Y-%m-%d %H:00" if hourly else "%Y-%m-%d"
    buckets = list(dict.fromkeys(at.strftime(fmt) for at in times))
    counts = Counter((assignment_id, at.strftime(fmt)) for assignment_id, at in events)
    series = []
    for assignment, name in rows:
        total, data = 0, []
        for bucket in buckets:
            total += counts[assignment.id, bucket]
            data.append(total)
        series.append(charts.Series(name, data))
    return charts.line(
        "Reveals over time (cumulative)",
        series,
        labels=buckets,
        x_title="Hour (UTC)" if hourly else "Day (UTC)",
        y_title="Reveals",
    )


def agreement_chart(project: Project) -> dict:
    """Double-coded pairs answered by both: the first coder's answer against the second's."""
    reviewers = [a.id for a, _ in _assignments(project)]
    table = Counter(answer_counts(project.id, reviewers).double)
    return charts.bar(
        "Agreement between first and second coder",
        [f"first: {a}" for a in LABELS],
        [charts.Series(f"second: {b}", [table[a, b] for a in LABELS]) for b in LABELS],
        x_title="First coder's answer",
        y_title="Pairs",
    )


#: The progress page's charts by the name of their CSV download.
CHARTS = {
    "budget": budget_chart,
    "characters": characters_chart,
    "reveals": reveals_chart,
    "agreement": agreement_chart,
}
