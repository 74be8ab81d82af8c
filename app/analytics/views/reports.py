"""Admins' pages: overview, KAPR report, trajectory record-linkage risk, belief audits, jobs."""

import json

from flask import abort, flash, redirect, render_template, request, url_for
from flask_login import current_user
from sqlalchemy import func, select

from app import charts, jobs
from app.analytics import advice
from app.analytics.belief import BeliefInputError, run_audit
from app.analytics.kapr import assignment_chart, kapr_csv, kapr_report, project_chart
from app.analytics.trajectory import (
    DISTANCES,
    OptionsError,
    RiskOptions,
    job_charts,
    read_uploads,
    trajectory_risk,
)
from app.analytics.views.blueprint import bp
from app.auth.accounts import token_counts
from app.auth.audit import ACTIONS, account_events
from app.auth.decorators import roles_required
from app.core.trajectory.model import TrajectoryFormatError
from app.extensions import db
from app.headers import attachment
from app.models import Assignment, Job, Project, ProjectState, User

BELIEF_EXAMPLE = {  # Dempster's rule is not acceptable (spec §3): Bel({a}) = 3/4 > P({a}) = 1/2
    "mode": "masses",
    "frame": "a, b",
    "first": "a: 1/2\na,b: 1/2",
    "second": "a: 1/2\na,b: 1/2",
    "probability": "a: 1/2, b: 1/2",
}


@bp.route("/")
@roles_required("admin")
def home():
    counts = {
        "users": db.session.scalar(select(func.count()).select_from(User)),
        "projects": db.session.scalar(
            select(func.count())
            .select_from(Project)
            .where(Project.state == ProjectState.READY.value)
        ),
        "assignments": db.session.scalar(select(func.count()).select_from(Assignment)),
        "jobs": db.session.scalar(select(func.count()).select_from(Job)),
    }
    users = db.session.scalars(select(User).order_by(User.username)).all()
    return render_template(
        "analytics/home.html", counts=counts, users=users, tokens=token_counts(),
        events=account_events(limit=20), actions=ACTIONS,
    )  # fmt: skip


@bp.route("/reports/kapr")
@roles_required("admin")
def kapr():
    report = kapr_report()
    return render_template(
        "analytics/kapr.html",
        report=report,
        assignments_chart=assignment_chart(report),
        projects_chart=project_chart(report),
    )


@bp.route("/reports/kapr-assignments.csv")
@roles_required("admin")
def kapr_chart_download():
    return charts.spec_csv_response(assignment_chart(kapr_report()), "kapr_assignments.csv")


@bp.route("/reports/kapr-projects.csv")
@roles_required("admin")
def kapr_projects_chart_download():
    return charts.spec_csv_response(project_chart(kapr_report()), "kapr_projects.csv")


@bp.route("/reports/kapr.csv")
@roles_required("admin")
def kapr_download():
    return attachment(kapr_csv(kapr_report()), "text/csv", "kapr_report.csv")


@bp.route("/reports/advice")
@roles_required("admin")
def advice_report():
    figures = advice.load_figures()
    found = [
        (i, advice.accuracy_chart(figures, d), advice.kapr_chart(figures, d))
        for i, d in enumerate(advice.datasets(figures))
    ]
    return render_template("analytics/advice.html", figures=figures, charts=found)


@bp.route("/reports/advice.csv")
@roles_required("admin")
def advice_download():
    return charts.csv_response(*advice.figures_csv(advice.load_figures()), "advice_policies.csv")


@bp.route("/reports/advice-<int:index>-<any(accuracy, kapr):kind>.csv")
@roles_required("admin")
def advice_chart_download(index: int, kind: str):
    figures = advice.load_figures()
    names = advice.datasets(figures)
    if index >= len(names):
        abort(404)
    build = advice.accuracy_chart if kind == "accuracy" else advice.kapr_chart
    return charts.spec_csv_response(build(figures, names[index]), f"advice_{index}_{kind}.csv")


@bp.route("/risk/trajectories", methods=["GET", "POST"])
@roles_required("admin")
def trajectories():
    if request.method == "GET":
        return _trajectory_form(request.args)
    try:
        options, texts, names = read_uploads(request.form, request.files)
    except (OptionsError, TrajectoryFormatError) as exc:
        flash(str(exc), "error")
        return _trajectory_form(request.form, 400)
    job_id = jobs.submit(
        "trajectory_risk", trajectory_risk, *texts, options, names, created_by=current_user.id
    )
    return redirect(url_for("analytics.job", job_id=job_id))


def _trajectory_form(form, status=200):
    page = render_template(
        "analytics/trajectories.html", form=form, distances=DISTANCES, defaults=RiskOptions()
    )
    return page, status


@bp.route("/risk/belief", methods=["GET", "POST"])
@roles_required("admin")
def belief():
    if request.method == "GET":
        form = BELIEF_EXAMPLE if request.args.get("example") == "dempster" else {}
        return render_template("analytics/belief.html", form=form, report=None)
    form = request.form
    try:
        report = run_audit(form)
    except BeliefInputError as exc:
        flash(str(exc), "error")
        return render_template("analytics/belief.html", form=form, report=None), 400
    return render_template("analytics/belief.html", form=form, report=report)


@bp.route("/jobs")
@roles_required("admin")
def job_list():
    rows = db.session.execute(
        select(Job, User.username)
        .outerjoin(User, Job.created_by == User.id)
        .order_by(Job.id.desc())
        .limit(200)
    ).all()
    return render_template("analytics/jobs.html", rows=rows)


@bp.route("/jobs/<int:job_id>")
@roles_required("admin")
def job(job_id: int):
    record = db.session.get(Job, job_id)
    if record is None:
        abort(404)
    figures = {}
    if record.kind == "trajectory_risk" and record.status == "done":
        figures = job_charts(record.result)
    return render_template("analytics/job.html", job=record, charts=figures)


@bp.route("/jobs/<int:job_id>/result.json")
@roles_required("admin")
def job_result(job_id: int):
    """The whole result of a finished job as a JSON download (a trajectory report lists every
    anonymized trajectory in it: what "Audit a linkage output" reads)."""
    record = db.session.get(Job, job_id)
    if record is None or record.status != "done" or record.result is None:
        abort(404, "no finished job with a result")
    body = json.dumps(record.result, indent=1)
    return attachment(body, "application/json", f"job_{job_id}_{record.kind}.json")


@bp.post("/jobs/<int:job_id>/cancel")
@roles_required("admin")
def job_cancel(job_id: int):
    if jobs.cancel(job_id):
        flash("Job cancelled: it stops within seconds (a scoring query is interrupted).", "info")
    else:
        flash("The job had already finished.", "error")
    return redirect(url_for("analytics.job", job_id=job_id))
