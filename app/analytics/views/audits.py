"""Admins' pages for re-identification audits: a project's display, and linkage outputs."""

from flask import abort, flash, render_template, request, url_for
from sqlalchemy import func, select

from app import charts
from app.analytics.belief import (
    CHARTS,
    AuditError,
    BeliefRequestError,
    audit_scope,
    audit_trajectory_result,
    audit_upload,
    kapr_against_probability,
    project_audit,
    project_trails,
    resolve,
    rows_csv,
    trails_csv,
)
from app.analytics.views.blueprint import bp
from app.auth.decorators import roles_required
from app.extensions import db
from app.models import Assignment, Job, Project, ProjectState

MAX_UPLOAD = 20 * 2**20


def _args(project_id: int):
    model = request.args.get("model") or None
    assignment = request.args.get("assignment", type=int)
    return project_id, model, assignment


def _or_404(call, *args):
    try:
        return call(*args)
    except AuditError as exc:
        abort(404 if str(exc).startswith("no ") else 400, str(exc))


@bp.route("/audits")
@roles_required("admin")
def audits():
    rows = db.session.execute(
        select(Project, func.count(Assignment.id))
        .outerjoin(Assignment, Assignment.project_id == Project.id)
        .where(Project.state == ProjectState.READY.value)  # not an import in progress
        .group_by(Project.id)
        .order_by(Project.id)
    ).all()
    return render_template("analytics/audits.html", rows=rows)


@bp.route("/projects/<int:project_id>/audit")
@roles_required("admin")
def project_audit_page(project_id: int):
    project_id, model, assignment = _args(project_id)
    audit = _or_404(project_audit, project_id, model, assignment)
    trails = _or_404(project_trails, project_id, model)
    specs = {name: build(audit) for name, build in CHARTS.items()}
    specs["trail"] = kapr_against_probability(trails)
    query = {k: v for k, v in (("model", model), ("assignment", assignment)) if v}
    return render_template(
        "analytics/audit.html",
        project=db.session.get(Project, project_id),
        audit=audit,
        specs=specs,
        query=query,
        csv_urls={
            name: url_for("analytics.audit_chart_csv", project_id=project_id, chart=name, **query)
            for name in specs
        },
    )


@bp.route("/projects/<int:project_id>/audit/<chart>.csv")
@roles_required("admin")
def audit_chart_csv(project_id: int, chart: str):
    project_id, model, assignment = _args(project_id)
    if chart == "rows-full":
        audit = _or_404(audit_scope, _or_404(resolve, project_id, model, assignment))
        return charts.csv_response(*rows_csv(audit), f"audit_{project_id}_rows.csv")
    if chart == "trail-full":
        trails = _or_404(project_trails, project_id, model)
        return charts.csv_response(*trails_csv(trails), f"audit_{project_id}_trail.csv")
    if chart == "trail":
        spec = kapr_against_probability(_or_404(project_trails, project_id, model))
    elif chart in CHARTS:
        spec = CHARTS[chart](_or_404(project_audit, project_id, model, assignment))
    else:
        abort(404)
    return charts.spec_csv_response(spec, f"audit_{project_id}_{chart}.csv")


@bp.route("/risk/belief/links", methods=["GET", "POST"])
@roles_required("admin")
def belief_links():
    if request.method == "GET" and "job" in request.args:  # "Audit it" on a job's page
        return _audit_job(request.args.get("job", type=int))
    if request.method == "GET":
        return render_template("analytics/belief_links.html", result=None)
    upload = request.files.get("file")
    text = request.form.get("text", "")
    name = ""
    if upload is not None and upload.filename:
        raw = upload.read(MAX_UPLOAD + 1)
        if len(raw) > MAX_UPLOAD:
            flash("the file is larger than 20 MB", "error")
            return render_template("analytics/belief_links.html", result=None), 400
        text, name = raw.decode("utf-8", errors="replace"), upload.filename
    try:
        result = audit_upload(text, name)
    except BeliefRequestError as exc:
        flash(str(exc), "error")
        return render_template("analytics/belief_links.html", result=None), 400
    return render_template("analytics/belief_links.html", result=result)


def _audit_job(job_id: int | None):
    """Audit the whole result of a finished trajectory job, read from the job itself."""
    job = db.session.get(Job, job_id or 0)
    if job is None or job.kind != "trajectory_risk" or job.status != "done":
        abort(404, "no finished trajectory record-linkage job")
    try:
        result = audit_trajectory_result(job.result or {})
    except BeliefRequestError as exc:
        flash(str(exc), "error")
        return render_template("analytics/belief_links.html", result=None, job=job), 400
    return render_template("analytics/belief_links.html", result=result, job=job)
