"""Managers' scripts: exports, release risk, blocking, budgets, progress, reviewer quality."""

from __future__ import annotations

from flask import abort, jsonify, request
from flask_login import current_user

from app.api.blueprint import bp
from app.api.openapi import documented
from app.api.openapi.manage import BLOCKING, BUDGET_BODY, BUDGET_CHANGED, PROGRESS, blocking
from app.api.openapi.quality import ACTED, ADJUDICATIONS, ALERTS, REVIEWERS, alert_action
from app.api.openapi.release import CONFIRM_BODY, RELEASE_QUERY, RELEASE_RISK
from app.api.projects import json_body
from app.auth.decorators import roles_required
from app.extensions import db
from app.models import Assignment, ReviewerAlert
from app.projects.blocking import BlockingRefused, create_pairs, preview_blocking
from app.projects.progress import project_progress
from app.projects.quality import AlertError, alert_state, project_alerts
from app.projects.quality.reviewers import project_quality
from app.projects.quality.truth import adjudicated
from app.projects.release import (
    ReleaseRequestError,
    confirm_release,
    release_gate,
    release_risk_of_project,
    requested_release,
)
from app.projects.staffing import AssignmentError, change_budget
from app.projects.staffing.reassign import act_on
from app.projects.views.access import (
    MANAGERS,
    changeable_project,
    export_download,
    owned_project,
)


@bp.get("/projects/<int:project_id>/export/<kind>")
@roles_required("manager", "admin")
@documented("A CSV export of the project", media_type="text/csv")
def export_view(project_id: int, kind: str):
    return export_download(owned_project(project_id), kind)


@bp.post("/projects/<int:project_id>/blocking")
@roles_required("manager")
@documented("Preview or create pairs by blocking", body=blocking, ok=BLOCKING)
def blocking_view(project_id: int):
    """``{"rules": [...], "create": false}``: the counts, or (``create``) make the pairs."""
    project = changeable_project(project_id)
    body = json_body()
    try:
        preview = preview_blocking(project, body.get("rules"))
        if not body.get("create"):
            return jsonify(
                rules=preview.rules, per_rule=preview.per_rule,
                new_per_rule=preview.new_per_rule, total=preview.total, limit=preview.limit,
            )  # fmt: skip
        made = create_pairs(project, body.get("rules"))
    except BlockingRefused as exc:
        db.session.rollback()
        abort(400, str(exc))
    db.session.commit()
    return jsonify(pairs=made), 201


@bp.post("/projects/<int:project_id>/assignments/<int:assignment_id>/budget")
@roles_required("manager")
@documented("Change a worker's budget", body=BUDGET_BODY, ok=BUDGET_CHANGED)
def budget_view(project_id: int, assignment_id: int):
    """``{"budget": 0.3}``: change a worker's KAPR budget (recorded)."""
    project = changeable_project(project_id)
    assignment = db.session.get(Assignment, assignment_id)
    if assignment is None or assignment.project_id != project.id:
        abort(404, "no such assignment in this project")
    try:
        change = change_budget(assignment, json_body().get("budget"), by=current_user)
    except AssignmentError as exc:
        db.session.rollback()
        abort(400, str(exc))
    db.session.commit()
    return jsonify(budget=change.budget_after, previous=change.budget_before)


@bp.get("/projects/<int:project_id>/progress")
@roles_required("manager", "admin")
@documented("A project's progress and agreement", ok=PROGRESS)
def progress_view(project_id: int):
    progress = project_progress(owned_project(project_id))
    agreement = progress.agreement
    return jsonify(
        pairs=progress.pairs, decided=progress.decided, conflicts=progress.conflicts,
        settled=progress.settled, answered=progress.answered, assigned=progress.assigned,
        answers=progress.answers, answers_due=progress.answers_due,
        agreement={"pairs": agreement.pairs, "percent": agreement.percent,
                   "kappa": agreement.kappa},
        workers=[{"assignment": w.assignment_id, "worker": w.worker, "pairs": w.pairs,
                  "decided": w.decided, "kapr": w.kapr, "budget": w.budget,
                  "characters": {"disclosed": w.chars_disclosed, "total": w.chars_total}}
                 for w in progress.workers],
    )  # fmt: skip


@bp.get("/projects/<int:project_id>/release-risk")
@roles_required(*MANAGERS)
@documented(
    "Re-identification risk of the linked export (k, ARX's risks, l-diversity)",
    ok=RELEASE_RISK,
    query=RELEASE_QUERY,
    errors=(400, 403, 404),
)
def release_risk_view(project_id: int):
    """Like the linked export it reads, the owning manager's only (403 for an admin).

    Parameters the query leaves out come from the saved thresholds, as on the page.
    """
    project = changeable_project(project_id)  # reads the linked export: the owner's only
    try:
        risk = release_risk_of_project(project, requested_release(project, request.args))
    except ReleaseRequestError as exc:
        abort(400, str(exc))
    return jsonify(risk.as_dict())


@bp.post("/projects/<int:project_id>/export/linked")
@roles_required("manager")
@documented(
    "The linked export above the release thresholds, with a recorded reason",
    body=CONFIRM_BODY,
    media_type="text/csv",
    errors=(400, 403, 404),
)
def confirmed_export_view(project_id: int):
    """``{"reason": "..."}``: record who takes it and why, then serve it (403 if refused)."""
    project = changeable_project(project_id)
    gate = release_gate(project)
    if gate.open:  # just checked: not measured again
        return export_download(project, "linked", confirmed=True)
    if gate.refused:
        abort(403, "refused: the linked export is above this project's release thresholds")
    try:
        confirm_release(project, gate, json_body().get("reason"), by=current_user)
    except ReleaseRequestError as exc:
        abort(400, str(exc))
    db.session.commit()
    return export_download(project, "linked", confirmed=True)


from app.api import conflicts  # noqa: E402,F401  (registers its routes on bp)

# --- Reviewer quality (docs/quality.md): reviewers' figures, alerts and their actions.


@bp.get("/projects/<int:project_id>/reviewers")
@roles_required(*MANAGERS)
@documented("Each reviewer's agreement, accuracy on checks, pace and alert", ok=REVIEWERS)
def reviewers_view(project_id: int):
    return jsonify(project_quality(owned_project(project_id)).as_dict())


@bp.get("/projects/<int:project_id>/alerts")
@roles_required(*MANAGERS)
@documented("The alerts raised on the project's reviewers", ok=ALERTS)
def alerts_view(project_id: int):
    project = owned_project(project_id)
    return jsonify(alerts=[a.as_dict() for a in project_alerts(project.id)])


@bp.get("/projects/<int:project_id>/adjudications")
@roles_required(*MANAGERS)
@documented(
    "The settled conflicts: each answer, who settled it, in what role, when", ok=ADJUDICATIONS
)
def adjudications_view(project_id: int):
    project = owned_project(project_id)
    found = adjudicated(project.id)
    return jsonify(adjudications=[{"pair_id": p, **a.as_dict()} for p, a in sorted(found.items())])


@bp.post("/projects/<int:project_id>/alerts/<int:alert_id>")
@roles_required("manager")
@documented("Pause, resume, reassign or dismiss an alert (recorded)", body=alert_action, ok=ACTED)
def alert_action_view(project_id: int, alert_id: int):
    """``{"action": "reassign", "to": "worker2"}``: act on an alert; every action is kept."""
    project = changeable_project(project_id)
    alert = db.session.get(ReviewerAlert, alert_id)
    if alert is None or alert.project_id != project.id:
        abort(404, "no such alert in this project")
    body = json_body()
    try:
        act_on(alert, body.get("action"), body.get("to"), current_user)
    except (AlertError, AssignmentError) as exc:
        db.session.rollback()
        abort(400, str(exc))
    db.session.commit()
    row = next(a for a in project_alerts(project.id) if a.id == alert.id)
    return jsonify(alert=row.as_dict(), action=body["action"], state=alert_state(alert.id))
