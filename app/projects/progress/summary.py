"""How far a project is: per worker answers, KAPR and characters; reviewers' agreement."""

from __future__ import annotations

from dataclasses import dataclass

from sqlalchemy import func, select

from app.extensions import db
from app.models import Assignment, AssignmentPair, BudgetChange, Pair, Project, Purpose
from app.projects.progress.agreement import Agreement, agreement
from app.projects.progress.outcomes import outcomes, touched_pairs

__all__ = ["ProjectProgress", "WorkerProgress", "project_progress"]


@dataclass(frozen=True)
class WorkerProgress:
    assignment_id: int
    worker: str
    pairs: int
    decided: int
    kapr: float
    budget: float
    chars_disclosed: int
    chars_total: int
    budget_changes: list[tuple[float, float, str]]  # (before, after, ISO time)
    kapr_exact: str = "0"

    @property
    def chars_percent(self) -> float:
        return 100 * self.chars_disclosed / self.chars_total if self.chars_total else 0.0


@dataclass(frozen=True)
class ProjectProgress:
    """How far a project is. Answered and settled are different counts: with double coding a
    pair both reviewers answered differently is answered but not settled (a conflict)."""

    pairs: int
    decided: int  # pairs settled: a final answer (agreement, majority or the manager's)
    conflicts: int  # open conflicts
    workers: list[WorkerProgress]
    agreement: Agreement
    assigned: int = 0  # pairs given to at least one reviewer
    answered: int = 0  # pairs every one of their reviewers answered
    answers: int = 0  # reviewers' answers given ...
    answers_due: int = 0  # ... of the answers the assignments ask for

    @property
    def settled(self) -> int:
        return self.decided


def project_progress(project: Project) -> ProjectProgress:
    """Per worker pairs decided, KAPR spent vs budget, characters disclosed; agreement.

    Counted by the database where every pair counts (pairs, each assignment's size, pairs
    given to someone) and in Python only over the pairs someone answered or resolved
    (:func:`~app.projects.progress.outcomes.touched_pairs`): a pair nobody answered is
    assigned, unanswered, undecided and no conflict, whatever its number.
    """
    by_pair = outcomes(project.id, only=touched_pairs(project.id))
    assignments = db.session.scalars(
        select(Assignment)
        .where(Assignment.project_id == project.id, Assignment.resolver.is_(False))
        .order_by(Assignment.id)
    ).all()
    ids = [a.id for a in assignments]
    changes: dict[int, list] = {}
    for c in db.session.scalars(
        select(BudgetChange).where(BudgetChange.assignment_id.in_(ids)).order_by(BudgetChange.id)
    ):
        changes.setdefault(c.assignment_id, []).append(
            (c.budget_before, c.budget_after, c.at.strftime("%Y-%m-%d %H:%M"))
        )
    sizes = dict.fromkeys(ids, 0)
    sizes.update(
        db.session.execute(
            select(AssignmentPair.assignment_id, func.count())
            .where(AssignmentPair.assignment_id.in_(ids))
            .group_by(AssignmentPair.assignment_id)
        ).all()
    )
    decided_by: dict[int, int] = dict.fromkeys(ids, 0)
    double: list[tuple[str, str]] = []
    for outcome in by_pair.values():
        for answer in outcome.answers:
            decided_by[answer.assignment_id] += answer.decision is not None
        decided = [a.decision for a in outcome.answers if a.decision is not None]
        if len(decided) >= 2:
            double.append((decided[0], decided[1]))
    workers = [
        WorkerProgress(
            a.id,
            a.worker.username,
            sizes[a.id],
            decided_by[a.id],
            a.kapr,
            a.budget,
            a.chars_disclosed or 0,
            a.chars_total or 0,
            changes.get(a.id, []),
            a.kapr_exact,
        )  # fmt: skip
        for a in assignments
    ]
    pairs = db.session.scalar(
        select(func.count())
        .select_from(Pair)
        .where(Pair.project_id == project.id, Pair.purpose != Purpose.MODEL.value)
    )
    assigned = db.session.scalar(
        select(func.count(AssignmentPair.pair_id.distinct())).where(
            AssignmentPair.assignment_id.in_(ids)
        )
    )
    given = [len(o.decided) for o in by_pair.values()]
    due = [len(o.answers) for o in by_pair.values()]
    return ProjectProgress(
        pairs=pairs,
        decided=sum(o.final is not None for o in by_pair.values()),
        conflicts=sum(o.open for o in by_pair.values()),
        workers=workers,
        agreement=agreement(double),
        assigned=assigned if ids else 0,
        answered=sum(d > 0 and g == d for g, d in zip(given, due, strict=True)),
        answers=sum(given),
        answers_due=sum(sizes.values()),
    )
