"""Send the pairs a reviewer decided to another reviewer (an alert's action, docs/quality.md)."""

from __future__ import annotations

from sqlalchemy import select

from app.extensions import db
from app.models import CLEARED, AnswerState, Assignment, AssignmentPair, Pair, ReviewerAlert, User
from app.projects.quality import AlertError, act_on_alert
from app.projects.staffing.assignments import assign_pairs, extend_assignment
from app.projects.staffing.errors import AssignmentError

__all__ = ["act_on", "reassign_decided"]


def reassign_decided(assignment: Assignment, to: User) -> tuple[Assignment, int]:
    """Add the real pairs ``assignment``'s reviewer has answered to ``to``'s assignment of the
    same round (made with the project's default budget when ``to`` has none), masked there;
    return that assignment and how many pairs it got. Synthetic checks stay behind. The
    caller commits."""
    if to.id == assignment.worker_id:
        raise AssignmentError("send the pairs to another reviewer than the one flagged")
    decided = db.session.scalars(
        select(AnswerState.pair_id)
        .join(Pair, Pair.id == AnswerState.pair_id)
        .where(
            AnswerState.assignment_id == assignment.id,
            AnswerState.decision != CLEARED,
            Pair.project_id == assignment.project_id,  # real pairs only
        )
        .order_by(AnswerState.pair_id)
    ).all()
    if not decided:
        raise AssignmentError("this reviewer has decided no pair yet")
    target = db.session.scalar(
        select(Assignment).where(
            Assignment.project_id == assignment.project_id,
            Assignment.worker_id == to.id,
            Assignment.round == assignment.round,
            Assignment.resolver.is_(False),
        )
    )
    if target is None:
        project = assignment.project
        made = assign_pairs(project, to, project.default_budget, decided, round=assignment.round)
        return made, len(decided)
    present = set(
        db.session.scalars(
            select(AssignmentPair.pair_id).where(AssignmentPair.assignment_id == target.id)
        )
    )
    new = [p for p in decided if p not in present]
    if new:
        extend_assignment(target, new)
    return target, len(new)


def act_on(alert: ReviewerAlert, action: str, to: str | None, by: User) -> None:
    """An alert's action as the pages and the API take it: a reassignment is staffed here
    (the flagged reviewer's decided pairs to ``to``), every action recorded. Flushes."""
    if action != "reassign":
        act_on_alert(alert, action, by)
        return
    worker = db.session.scalar(select(User).where(User.username == str(to)))
    if worker is None:
        raise AlertError("name the reviewer to send the pairs to")
    target, sent = reassign_decided(db.session.get(Assignment, alert.assignment_id), worker)
    act_on_alert(alert, "reassign", by, to_assignment_id=target.id, pairs=sent)
