"""Reviewer quality: each reviewer's agreement and accuracy, alerts and what was done, breaks."""

from __future__ import annotations

from flask import abort, flash, redirect, render_template, request, url_for
from flask_login import current_user

from app import charts
from app.auth.decorators import roles_required
from app.extensions import db
from app.models import ReviewerAlert
from app.projects.quality import (
    AlertError,
    QualitySettingsError,
    project_alerts,
    set_quality_settings,
)
from app.projects.quality.reviewers import project_quality
from app.projects.quality.tables import CSV_HEADER, csv_rows, quality_charts
from app.projects.quality.truth import adjudicated
from app.projects.staffing import AssignmentError
from app.projects.staffing.reassign import act_on
from app.projects.views.access import MANAGERS, changeable_project, owned_project
from app.projects.views.blueprint import bp

ADJUDICATION_HEADER = ["pair_id", "answer", "by", "role", "at"]


@bp.get("/<int:project_id>/quality")
@roles_required(*MANAGERS)
def quality(project_id: int):
    project = owned_project(project_id)
    found = project_quality(project)
    return render_template(
        "projects/quality.html",
        project=project,
        quality=found,
        charts=quality_charts(found),
        alerts=project_alerts(project.id),
        adjudications=sorted(adjudicated(project.id).items()),
    )


@bp.get("/<int:project_id>/quality/reviewers.csv")
@roles_required(*MANAGERS)
def quality_csv(project_id: int):
    rows = csv_rows(project_quality(owned_project(project_id)))
    return charts.csv_response(CSV_HEADER, rows, f"reviewers_{project_id}.csv")


@bp.get("/<int:project_id>/quality/adjudications.csv")
@roles_required(*MANAGERS)
def adjudications_csv(project_id: int):
    found = adjudicated(owned_project(project_id).id)
    rows = [[pair, a.answer, a.by, a.role, a.at] for pair, a in sorted(found.items())]
    return charts.csv_response(ADJUDICATION_HEADER, rows, f"adjudications_{project_id}.csv")


@bp.get("/<int:project_id>/quality/<name>.csv")
@roles_required(*MANAGERS)
def quality_chart_csv(project_id: int, name: str):
    specs = quality_charts(project_quality(owned_project(project_id)))
    if name not in specs:
        abort(404, "no such chart")
    return charts.spec_csv_response(specs[name], f"quality_{project_id}_{name}.csv")


@bp.post("/<int:project_id>/quality/settings")
@roles_required("manager")
def quality_settings(project_id: int):
    project = changeable_project(project_id)
    try:
        rate = float(request.form.get("alert_error_rate", "")) / 100
        minutes, decisions = (
            _whole(request.form.get(k)) for k in ("break_minutes", "break_decisions")
        )
        set_quality_settings(project, rate, minutes, decisions)
    except (ValueError, QualitySettingsError) as exc:
        db.session.rollback()
        flash(f"Settings not changed: {exc}", "error")
    else:
        db.session.commit()
        flash("Reviewer-quality settings saved.", "info")
    return redirect(url_for("projects.quality", project_id=project.id) + "#settings")


def _whole(text: str | None) -> int | None:
    text = (text or "").strip()
    if not text:
        return None
    if not text.isdigit():
        raise QualitySettingsError("the break's limits are whole numbers (empty: none)")
    return int(text)


@bp.post("/<int:project_id>/alerts/<int:alert_id>")
@roles_required("manager")
def alert_action(project_id: int, alert_id: int):
    """Pause, resume, reassign or dismiss an alert from the progress or quality page."""
    project = changeable_project(project_id)
    alert = db.session.get(ReviewerAlert, alert_id)
    if alert is None or alert.project_id != project.id:
        abort(404, "no such alert in this project")
    action = request.form.get("action", "")
    try:
        act_on(alert, action, request.form.get("to"), current_user)
    except (AlertError, AssignmentError) as exc:
        db.session.rollback()
        flash(f"Nothing done: {exc}", "error")
    else:
        db.session.commit()
        flash(f"Alert {alert.id}: {action} recorded.", "info")
    back = request.form.get("back") == "quality"
    page = "projects.quality" if back else "projects.progress"
    return redirect(url_for(page, project_id=project.id) + "#alerts")
