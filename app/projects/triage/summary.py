"""A project's rounds at a glance: pairs per round and purpose (one SQL aggregate), and each
round's provenance row.

A round made by the application's blocking (at creation or on the blocking page), a small
deduplication's every pair, or a MINDFIRL pair file has pairs but no provenance row: it is
listed all the same, as ``pairfile`` (a pair-file project's) or ``blocking``, so
the project page, ``GET …/rounds`` and ``flask projects rounds`` list the same rounds."""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass, field

from sqlalchemy import func, select

from app.extensions import db
from app.models import Pair, Project, ProjectKind, Purpose, Round

__all__ = ["RoundSummary", "round_summaries"]


@dataclass
class RoundSummary:
    number: int
    purposes: dict[str, int] = field(default_factory=dict)
    origin: str | None = None
    triage: dict | None = None
    filename: str | None = None
    at: dt.datetime | None = None  # when the provenance row was written (None: no row)
    counts: dict = field(default_factory=dict)  # the provenance row's counts

    def as_json(self) -> dict:
        """The round as the API and the command line give it."""
        counts = self.counts or {"pairs": self.pairs, "review": self.review}
        return {
            "round": self.number, "origin": self.origin,
            "at": self.at.isoformat() if self.at else None, "filename": self.filename,
            "triage": self.triage, "counts": counts,
        }  # fmt: skip

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
        summary.at, summary.counts = row.at, dict(row.counts or {})
    for summary in found.values():
        if summary.origin is None:  # no provenance row: the project's file, or our rules
            pairfile = project.kind == ProjectKind.PAIRFILE or Purpose.PAIRFILE in summary.purposes
            summary.origin = "pairfile" if pairfile else "blocking"
    return [found[n] for n in sorted(found)]
