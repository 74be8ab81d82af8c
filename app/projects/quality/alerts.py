"""Early alerts on a reviewer: the sequential test run on each answered check, and actions.

When a reviewer answers one of their known-truth checks, :func:`observe_answer` runs the
project's test (:class:`app.core.quality.Sprt`, the threshold ``Project.alert_error_rate``)
over the assignment's check answers in the order they were first given (an ``unsure``
answer is no evidence either way) and raises a :class:`~app.models.ReviewerAlert` the first
time it flags the reviewer, with the number of their decisions so far. The manager then
pauses the assignment, sends its decided pairs to another reviewer or dismisses the alert;
each is an append-only :class:`~app.models.AlertAction`. After a dismissal the test starts
again on the checks answered since.
"""

from __future__ import annotations

from dataclasses import dataclass

from flask import current_app
from sqlalchemy import func, select

from app.core.quality import Sprt
from app.extensions import db
from app.models import (
    CLEARED,
    AlertAction,
    AnswerState,
    Assignment,
    DecisionEvent,
    Project,
    QualityCheck,
    ReviewerAlert,
    User,
)

__all__ = [
    "ACTIONS",
    "AlertError",
    "act_on_alert",
    "alert_rule",
    "alert_state",
    "check_trials",
    "observe_answer",
    "project_alerts",
]

#: What a manager may do with an alert (``reassign`` is recorded by the staffing step).
ACTIONS = ("pause", "resume", "dismiss", "reassign")
RULE = "sprt"


class AlertError(ValueError):
    """A user-facing reason an alert's action is refused."""


def alert_rule(project: Project) -> Sprt:
    """The project's sequential test (its threshold, the configured share and error rates)."""
    config = current_app.config
    return Sprt.for_threshold(
        project.alert_error_rate,
        config.get("ALERT_P0_SHARE", 0.25),
        config.get("ALERT_ALPHA", 0.05),
        config.get("ALERT_BETA", 0.05),
    )


def check_trials(assignment_id: int, after_event: int = 0) -> list[bool]:
    """The assignment's answered checks as trials (True: wrong), in the order of their first
    answer, counting only checks first answered after event ``after_event``."""
    first = (
        select(DecisionEvent.pair_id, func.min(DecisionEvent.id).label("first"))
        .where(DecisionEvent.assignment_id == assignment_id)
        .group_by(DecisionEvent.pair_id)
        .subquery()
    )
    rows = db.session.execute(
        select(QualityCheck.expected, AnswerState.decision)
        .join(
            AnswerState,
            (AnswerState.assignment_id == QualityCheck.assignment_id)
            & (AnswerState.pair_id == QualityCheck.pair_id),
        )
        .join(first, first.c.pair_id == QualityCheck.pair_id)
        .where(
            QualityCheck.assignment_id == assignment_id,
            AnswerState.decision.in_(("same", "different")),
            first.c.first > after_event,
        )
        .order_by(first.c.first)
    ).all()
    return [decision != expected for expected, decision in rows]


def observe_answer(assignment_id: int, pair_id: int) -> ReviewerAlert | None:
    """After an answer: raise an alert when it answered a check and the test now flags the
    reviewer (once: an open alert is not raised again). Flushes; the caller commits."""
    is_check = db.session.scalar(
        select(QualityCheck.id).where(
            QualityCheck.assignment_id == assignment_id, QualityCheck.pair_id == pair_id
        )
    )
    if is_check is None:
        return None
    newest = db.session.scalar(
        select(ReviewerAlert)
        .where(ReviewerAlert.assignment_id == assignment_id)
        .order_by(ReviewerAlert.id.desc())
        .limit(1)
    )
    after = 0
    if newest is not None:
        state = alert_state(newest.id)
        if state != "dismissed":
            return None
        after = _dismissed_at_event(newest.id, assignment_id)
    assignment = db.session.get(Assignment, assignment_id)
    rule = alert_rule(assignment.project)
    found = rule.run(check_trials(assignment_id, after))
    if found.flagged_at is None:
        return None
    decided = db.session.scalar(
        select(func.count())
        .select_from(AnswerState)
        .where(AnswerState.assignment_id == assignment_id, AnswerState.decision != CLEARED)
    )
    alert = ReviewerAlert(
        project_id=assignment.project_id,
        assignment_id=assignment_id,
        worker_id=assignment.worker_id,
        rule=RULE,
        threshold=assignment.project.alert_error_rate,
        after_decisions=decided,
        checks=found.trials,
        wrong=found.wrong,
        statistic=found.statistic,
    )
    db.session.add(alert)
    db.session.flush()
    return alert


def _dismissed_at_event(alert_id: int, assignment_id: int) -> int:
    """The assignment's newest decision event when the alert was dismissed."""
    at = db.session.scalar(
        select(func.max(AlertAction.at)).where(
            AlertAction.alert_id == alert_id, AlertAction.action == "dismiss"
        )
    )
    return (
        db.session.scalar(
            select(func.max(DecisionEvent.id)).where(
                DecisionEvent.assignment_id == assignment_id, DecisionEvent.at <= at
            )
        )
        or 0
    )


def alert_state(alert_id: int) -> str:
    """``open`` until acted on, then its newest action's state: ``paused``, ``resumed``,
    ``reassigned`` or ``dismissed``."""
    newest = db.session.scalar(
        select(AlertAction.action)
        .where(AlertAction.alert_id == alert_id)
        .order_by(AlertAction.id.desc())
        .limit(1)
    )
    return {None: "open", "pause": "paused", "resume": "resumed"}.get(newest, f"{newest}ed")


def act_on_alert(alert: ReviewerAlert, action: str, by: User, **recorded) -> AlertAction:
    """Record the manager's ``action`` on ``alert`` and apply a pause, a resume or (with a
    dismissal) the end of a pause. Flushes; the caller commits."""
    if action not in ACTIONS:
        raise AlertError(f"an alert's action is one of {', '.join(ACTIONS)}")
    state = alert_state(alert.id)
    if state == "dismissed":
        raise AlertError("this alert was dismissed already")
    assignment = db.session.get(Assignment, alert.assignment_id)
    if action == "pause":
        if assignment.paused:
            raise AlertError("this assignment is paused already")
        assignment.paused = True
    elif action in ("resume", "dismiss"):
        if action == "resume" and not assignment.paused:
            raise AlertError("this assignment is not paused")
        assignment.paused = False
    assignment.version += 1
    done = AlertAction(alert_id=alert.id, action=action, by=by.id, **recorded)
    db.session.add(done)
    db.session.flush()
    return done


@dataclass(frozen=True)
class AlertRow:
    id: int
    assignment_id: int
    worker: str
    at: object
    after_decisions: int
    checks: int
    wrong: int
    threshold: float
    statistic: float
    state: str
    paused: bool

    def as_dict(self) -> dict:
        out = dict(self.__dict__)
        out["at"] = self.at.isoformat() if self.at else None
        return out


def project_alerts(project_id: int) -> list[AlertRow]:
    """Every alert of the project, newest first, with its state."""
    rows = db.session.execute(
        select(ReviewerAlert, User.username, Assignment.paused)
        .join(User, User.id == ReviewerAlert.worker_id)
        .join(Assignment, Assignment.id == ReviewerAlert.assignment_id)
        .where(ReviewerAlert.project_id == project_id)
        .order_by(ReviewerAlert.id.desc())
    ).all()
    return [
        AlertRow(
            a.id, a.assignment_id, name, a.at, a.after_decisions, a.checks, a.wrong,
            a.threshold, a.statistic, alert_state(a.id), paused,
        )
        for a, name, paused in rows
    ]  # fmt: skip
