"""The Release risk page: the linked export's re-identification risk, thresholds, confirmations.

Like the linked export it measures, the page is the owning manager's only (an admin gets 403):
its classes show the export's quasi-identifier values. docs/release-risk.md.
"""

from __future__ import annotations

import json

from flask import abort, flash, redirect, render_template, request, url_for
from flask_login import current_user

from app import charts
from app.auth.decorators import roles_required
from app.extensions import db
from app.headers import attachment
from app.projects.release import (
    ReleaseRequestError,
    confirm_release,
    confirmations_of,
    default_columns,
    driver_rows,
    policy_of,
    release_gate,
    release_risk_of_project,
    requested_release,
    risk_chart,
    save_policy,
)
from app.projects.views.access import changeable_project, export_download
from app.projects.views.blueprint import bp


def _manager_project(project_id: int):
    """The release-risk check reads the linked export: the owning manager's only, as a
    change is (app.projects.ownership)."""
    return changeable_project(project_id)


def _measured(project_id: int):
    project = _manager_project(project_id)
    try:
        asked = requested_release(project, request.args)
        risk = release_risk_of_project(project, asked)
    except ReleaseRequestError as exc:
        return project, None, str(exc), None
    return project, risk, None, (asked, risk)


@bp.route("/<int:project_id>/release-risk")
@roles_required("manager")
def release_risk_page(project_id: int):
    project, risk, problem, measured = _measured(project_id)
    columns = [a for a in project.sensitive if not a.truth]
    return render_template(
        "projects/release_risk.html", project=project, risk=risk, problem=problem,
        report=risk.as_dict() if risk else None, risk_picture=risk_chart(risk) if risk else None,
        drivers=driver_rows(risk) if risk else None, defaults=default_columns(project),
        columns=columns, policy=policy_of(project), gate=release_gate(project, measured),
        confirmations=confirmations_of(project), args=request.args,
    ), (400 if problem else 200)  # fmt: skip


@bp.route("/<int:project_id>/release-risk.<fmt>")
@roles_required("manager")
def release_risk_download(project_id: int, fmt: str):
    """The report as JSON, its classes as CSV, or the chart's data (``histogram`` CSV)."""
    project, risk, problem, _ = _measured(project_id)
    if problem:
        return problem, 400, {"Content-Type": "text/plain; charset=utf-8"}
    name = f"release_risk_{project.id}"
    if fmt == "json":
        body = json.dumps(risk.as_dict(), indent=2, ensure_ascii=False)
        return attachment(body, "application/json", f"{name}.json")
    if fmt == "csv":
        return charts.csv_response(*driver_rows(risk), f"{name}_classes.csv")
    if fmt == "histogram.csv":
        return charts.spec_csv_response(risk_chart(risk), f"{name}_histogram.csv")
    abort(404, "no such download")


@bp.route("/<int:project_id>/release-risk/policy", methods=["POST"])
@roles_required("manager")
def release_policy(project_id: int):
    project = changeable_project(project_id)
    try:
        save_policy(project, request.form, by=current_user)
    except ReleaseRequestError as exc:
        flash(f"Thresholds not saved: {exc}", "error")
        return redirect(url_for("projects.release_risk_page", project_id=project.id))
    db.session.commit()
    flash("Release thresholds saved.", "info")
    return redirect(url_for("projects.release_risk_page", project_id=project.id))


@bp.route("/<int:project_id>/release-risk/confirm", methods=["POST"])
@roles_required("manager")
def release_confirm(project_id: int):
    """Record the manager's reason, then serve the linked export above the thresholds."""
    project = changeable_project(project_id)
    gate = release_gate(project)
    if gate.open:  # just checked: not measured again
        return export_download(project, "linked", confirmed=True)
    try:
        confirm_release(project, gate, request.form.get("reason", ""), by=current_user)
    except ReleaseRequestError as exc:
        flash(f"Not exported: {exc}", "error")
        return redirect(url_for("projects.release_risk_page", project_id=project.id))
    db.session.commit()
    return export_download(project, "linked", confirmed=True)
