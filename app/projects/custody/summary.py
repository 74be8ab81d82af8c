"""How many people had nothing, something or everything identifying disclosed, per attribute.

A person is a record. Per identifying attribute: *nothing* (the record's cell never left
masked for any worker), *something* (its highest level was partial) or *everything* (full).
Over all identifying attributes together: nothing (every attribute masked), everything
(every attribute full) or something (the rest).
"""

from __future__ import annotations

from dataclasses import dataclass

from sqlalchemy import func, select

from app import charts
from app.core.disclosure import Level
from app.extensions import db
from app.models import Project, ProjectState, Record
from app.projects.custody.disclosures import highest_levels, project_disclosures

__all__ = ["ANY", "DisclosureSummary", "disclosure_chart", "disclosure_summary", "summaries"]

#: The row of the summary over all identifying attributes together.
ANY = "all identifying attributes"
OUTCOMES = ("nothing", "something", "everything")
_OUTCOME = {Level.MASKED.value: "nothing", Level.PARTIAL.value: "something", "full": "everything"}


@dataclass(frozen=True)
class DisclosureSummary:
    """A project's records by outcome: ``counts[attribute][outcome]`` (and :data:`ANY`)."""

    project_id: int
    name: str
    records: int
    reveals: int
    counts: dict[str, dict[str, int]]
    closed: bool = False

    def rows(self) -> list[list]:
        return [[a, *(c[o] for o in OUTCOMES)] for a, c in self.counts.items()]

    def as_json(self) -> dict:
        return {
            "project": self.project_id, "name": self.name, "records": self.records,
            "reveals": self.reveals, "closed": self.closed, "by_attribute": self.counts,
        }  # fmt: skip


def disclosure_summary(project: Project) -> DisclosureSummary:
    """Count the project's records by what was disclosed of them (see the module)."""
    items = list(project_disclosures(project))
    highest = highest_levels(project, items)
    records = db.session.scalar(
        select(func.count(Record.id)).where(Record.project_id == project.id)
    )
    names = [a.name for a in project.identifying]
    counts = {n: dict.fromkeys(OUTCOMES, 0) for n in [*names, ANY]}
    for levels in highest.values():
        for name in names:
            counts[name][_OUTCOME[levels.get(name, Level.MASKED.value)]] += 1
        shown = [levels.get(n, Level.MASKED.value) for n in names]
        if all(level == Level.FULL.value for level in shown):
            counts[ANY]["everything"] += 1
        elif any(level != Level.MASKED.value for level in shown):
            counts[ANY]["something"] += 1
    never = records - len(highest)  # records nobody saw anything of
    for name in counts:
        counts[name]["nothing"] += never
    reveals = sum(d.how == "reveal" for d in items)
    return DisclosureSummary(project.id, project.name, records, reveals, counts, project.closed)


#: Counts this many times apart are drawn on a logarithmic scale (the smaller would vanish).
FAR_APART = 20


def disclosure_chart(summary: DisclosureSummary) -> dict:
    """Bars per attribute: records with nothing, something, everything disclosed.

    Side by side on a logarithmic scale when the counts are far apart (FEBRL4: 163 records
    with something disclosed beside 9,837 with nothing, a sliver of a linear stacked bar),
    else stacked on a linear one."""
    labels = list(summary.counts)
    series = [
        charts.Series(outcome, [summary.counts[a][outcome] for a in labels]) for outcome in OUTCOMES
    ]
    shown = [v for s in series for v in s.data if v]
    spread = bool(shown) and max(shown) > FAR_APART * min(shown)
    return charts.bar(
        "People by what was disclosed of them",
        labels,
        series,
        x_title="Identifying attribute",
        y_title="Records" + (" (logarithmic)" if spread else ""),
        y_scale="logarithmic" if spread else "linear",
        stacked=not spread,
    )


def summaries() -> list[DisclosureSummary]:
    """Every project's summary (the admins' view across projects), by project id."""
    projects = db.session.scalars(
        select(Project).where(Project.state == ProjectState.READY.value).order_by(Project.id)
    )
    return [disclosure_summary(p) for p in projects]
