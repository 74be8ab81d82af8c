"""A project's rounds at a glance: pairs per round and purpose (one SQL aggregate), and each
round's provenance row."""

from __future__ import annotations

from dataclasses import dataclass, field

from sqlalchemy import func, select

from app.extensions import db
from app.models import Pair, Project, Round

__all__ = ["RoundSummary", "round_summaries"]


@dataclass
class RoundSummary:
    number: int
    purposes: dict[str, int] = field(default_factory=dict)
    origin: str | None = None
    triage: dict | None = None
    filename: str | None = None

    @property
    def pairs(self) -> int:
        return sum(self.purposes.values())

    @property
    def review(self) -> int:
        return self.pairs - self.purposes.get("model", 0)


def round_summaries(project: Project) -> list[RoundSummary]:
    """Every round of ``project`` (with pairs or a provenance row), in order."""
    found: dict[int, RoundSummary] = {}
    counts = db.session.execute(
        select(Pair.round, Pair.purpose, func.count())
        .where(Pair.project_id == project.id)
        .group_by(Pair.round, Pair.purpose)
    )
    for number, purpose, count in counts:
        found.setdefault(number, RoundSummary(number)).purposes[purpose] = count
    for row in db.session.scalars(select(Round).where(Round.project_id == project.id)):
        summary = found.setdefault(row.number, RoundSummary(row.number))
        summary.origin, summary.triage, summary.filename = row.origin, row.triage, row.filename
    return [found[n] for n in sorted(found)]
