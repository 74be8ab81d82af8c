"""Give a worker a share of a project's pairs with a privacy budget."""

from __future__ import annotations

from collections.abc import Sequence

from sqlalchemy import select

from app.extensions import db
from app.models import Assignment, AssignmentPair, Pair, Project, Role, User


class AssignmentError(ValueError):
    """A user-facing reason an assignment cannot be made."""


def assign_pairs(
    project: Project, worker: User, budget: float, pair_ids: Sequence[int] | str = "all"
) -> Assignment:
    """Create ``worker``'s assignment of ``pair_ids`` (or all pairs) in ``project``.

    The budget is a KAPR limit in [0, 1]. The caller commits.
    """
    if worker.role != Role.WORKER:
        raise AssignmentError(f"{worker.username!r} is not a worker")
    if isinstance(budget, bool) or not isinstance(budget, int | float) or not 0 <= budget <= 1:
        raise AssignmentError("the budget is a KAPR limit from 0 to 1")
    exists = db.session.scalar(
        select(Assignment.id).where(
            Assignment.project_id == project.id, Assignment.worker_id == worker.id
        )
    )
    if exists:
        raise AssignmentError(f"{worker.username!r} has an assignment in this project already")
    in_project = db.session.scalars(
        select(Pair.id).where(Pair.project_id == project.id).order_by(Pair.id)
    ).all()
    if pair_ids == "all":
        chosen = list(in_project)
    elif isinstance(pair_ids, str):
        raise AssignmentError("'pairs' must be \"all\" or a list of pair ids")
    else:
        known = set(in_project)
        unknown = [p for p in pair_ids if p not in known]
        if unknown:
            raise AssignmentError(f"pairs not in this project: {unknown[:10]}")
        chosen = list(dict.fromkeys(pair_ids))
    if not chosen:
        raise AssignmentError("an assignment needs at least one pair")
    assignment = Assignment(project_id=project.id, worker_id=worker.id, budget=float(budget))
    assignment.pairs = [AssignmentPair(pair_id=p, position=i) for i, p in enumerate(chosen)]
    db.session.add(assignment)
    db.session.flush()
    return assignment
