"""How far a project is: per worker answers, KAPR and characters; reviewers' agreement."""

from __future__ import annotations

from dataclasses import dataclass

from sqlalchemy import func, select

from app.extensions import db
from app.models import Assignment, AssignmentPair, BudgetChange, Pair, Project, reviewed_pairs
from app.projects.progress.agreement import Agreement, agreement
from app.projects.progress.counts import answer_counts, assigned_pairs

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

    Counted by the database (:mod:`app.projects.progress.counts`): pairs, each assignment's
    size and answers, pairs given to someone, settled, in conflict, answered, and the first
    two coders' answers; nothing is read pair by pair.
    """
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
    counts = answer_counts(project.id, ids)
    workers = [
        WorkerProgress(
            a.id,
            a.worker.username,
            sizes[a.id],
            counts.per_assignment.get(a.id, 0),
            a.kapr,
            a.budget,
            a.chars_disclosed or 0,
            a.chars_total or 0,
            changes.get(a.id, []),
            a.kapr_exact,
        )  # fmt: skip
        for a in assignments
    ]
    return ProjectProgress(
        pairs=reviewable_pairs(project.id),
        decided=counts.decided,
        conflicts=counts.conflicts,
        workers=workers,
        agreement=agreement(counts.double_labels()),
        assigned=assigned_pairs(ids),
        answered=counts.answered,
        answers=counts.answers,
        answers_due=sum(sizes.values()),
    )


def reviewable_pairs(project_id: int) -> int:
    """The project's pairs for people to review (every purpose but the model's).

    Counted round by round and purpose by purpose through ``ix_pairs_project_round_purpose``
    (``reviewed_pairs``: a project's ten million model pairs are never read to count its
    million to review).
    """
    return db.session.scalar(
        select(func.count()).select_from(Pair).where(*reviewed_pairs(project_id))
    )
