"""Projects with their counts and progress, for the managers' list and ``GET /api/v1/projects``.

The counts mean what the progress page means (:mod:`app.projects.progress.summary`):
*answered* pairs have every one of their reviewers' answers, *settled* pairs a final answer
(the reviewers agree, a majority of three, or the manager decided).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from sqlalchemy import func, select

from app.extensions import db
from app.models import Assignment, Pair, Project, ProjectState, Purpose, Source, User
from app.projects.progress.outcomes import outcomes, touched_pairs

__all__ = ["ProjectSummary", "project_summaries", "visible_projects"]


@dataclass(frozen=True)
class ProjectSummary:
    project: Project
    owner: str
    records: int
    pairs: int
    assignments: int  # reviewers' assignments (a manager's resolver assignment excluded)
    answered: int
    settled: int
    conflicts: int  # open ones

    @property
    def settled_percent(self) -> float:
        return 100 * self.settled / self.pairs if self.pairs else 0.0

    @property
    def answered_percent(self) -> float:
        return 100 * self.answered / self.pairs if self.pairs else 0.0

    def as_dict(self) -> dict:
        p = self.project
        return {
            "id": p.id, "name": p.name, "kind": p.kind, "owner": self.owner,
            "created_at": p.created_at.isoformat(),
            "counts": {
                "records": self.records, "pairs": self.pairs, "assignments": self.assignments,
                "answered": self.answered, "settled": self.settled, "conflicts": self.conflicts,
            },
            "progress": {
                "answered_percent": round(self.answered_percent, 2),
                "settled_percent": round(self.settled_percent, 2),
            },
        }  # fmt: skip


def visible_projects(user: User) -> list[Project]:
    """The ready projects ``user`` sees: a manager their own, an admin every one; newest first."""
    query = select(Project).where(Project.state == ProjectState.READY.value)
    if user.role != "admin":
        query = query.where(Project.owner_id == user.id)
    return list(db.session.scalars(query.order_by(Project.created_at.desc(), Project.id.desc())))


def _grouped(query) -> dict[int, int]:
    return dict(db.session.execute(query).all())


def project_summaries(projects: Sequence[Project]) -> list[ProjectSummary]:
    """Counts and progress of ``projects`` (three grouped queries, then each one's answers)."""
    ids = [p.id for p in projects]
    records = _grouped(
        select(Source.project_id, func.sum(Source.record_count))
        .where(Source.project_id.in_(ids))
        .group_by(Source.project_id)
    )
    pairs = _grouped(  # pairs to review, as on the progress page: not the model's decisions
        select(Pair.project_id, func.count())
        .where(Pair.project_id.in_(ids), Pair.purpose != Purpose.MODEL.value)
        .group_by(Pair.project_id)
    )
    assignments = _grouped(
        select(Assignment.project_id, func.count())
        .where(Assignment.project_id.in_(ids), Assignment.resolver.is_(False))
        .group_by(Assignment.project_id)
    )
    owners = dict(
        db.session.execute(
            select(User.id, User.username).where(User.id.in_({p.owner_id for p in projects}))
        ).all()
    )
    summaries = []
    for project in projects:
        # Answered, decided and open pairs are all among those someone answered or resolved.
        by_pair = (
            outcomes(project.id, only=touched_pairs(project.id)).values()
            if pairs.get(project.id)
            else []
        )
        answered = sum(
            1 for o in by_pair if o.answers and all(a.decision is not None for a in o.answers)
        )
        summaries.append(
            ProjectSummary(
                project, owners.get(project.owner_id, "?"), int(records.get(project.id) or 0),
                pairs.get(project.id, 0), assignments.get(project.id, 0), answered,
                sum(o.final is not None for o in by_pair), sum(o.open for o in by_pair),
            )
        )  # fmt: skip
    return summaries
