"""The budget recommendation as a page: percentages of the maximum KAPR, exact on demand.

When computing it would take long (app.projects.staffing.recommending) the page offers to run
it as a job and its job page shows the progress, then the same recommendation. Scripts read
the same numbers as exact fractions from ``GET /api/v1/projects/<id>/budget-recommendation``;
people get these pages and their CSV.
"""

from __future__ import annotations

from flask import abort, redirect, render_template, request, url_for
from flask_login import current_user

from app import charts
from app.auth.decorators import roles_required
from app.extensions import db
from app.models import Assignment
from app.projects.staffing.recommendation import (
    distribution_chart,
    per_pair_table,
    recommend_for,
    sample_size,
)
from app.projects.staffing.recommending import (
    finished_recommendation,
    recommendation_job,
    runs_as_job,
    submit_recommendation,
)
from app.projects.views.access import MANAGERS, owned_project
from app.projects.views.blueprint import bp

PAGE = "projects/recommendation.html"


def _assignment_id() -> int | None:
    assignment_id = request.values.get("assignment", type=int)
    if "assignment" in request.values and assignment_id is None:
        abort(400, "'assignment' must be an assignment id")
    return assignment_id


def _assignment(project, assignment_id: int | None) -> Assignment | None:
    assignment = db.session.get(Assignment, assignment_id) if assignment_id else None
    if assignment_id and (assignment is None or assignment.project_id != project.id):
        abort(404, f"no assignment {assignment_id} in this project")
    return assignment


def _recommendation(project_id: int):
    project = owned_project(project_id)
    assignment_id = _assignment_id()
    try:
        advice = recommend_for(project, assignment_id)
    except LookupError as exc:
        abort(404, str(exc))
    return project, assignment_id, advice


def _shown(project, assignment, advice, **more):
    return render_template(
        PAGE, project=project, advice=advice, assignment=assignment,
        advice_chart=distribution_chart(advice) if advice else None, sample=sample_size(),
        **more,
    )  # fmt: skip


@bp.get("/<int:project_id>/budget-recommendation")
@roles_required(*MANAGERS)
def budget_recommendation_page(project_id: int):
    """All the project's pairs, or ``?assignment=<id>``'s; a job's button when it takes long."""
    project = owned_project(project_id)
    assignment = _assignment(project, _assignment_id())
    if runs_as_job(project, assignment.id if assignment else None):
        return _shown(project, assignment, None, as_job=True)
    _, _, advice = _recommendation(project_id)
    return _shown(project, assignment, advice)


@bp.post("/<int:project_id>/budget-recommendation/jobs")
@roles_required(*MANAGERS)
def budget_recommendation_start(project_id: int):
    project = owned_project(project_id)
    assignment = _assignment(project, _assignment_id())
    job_id = submit_recommendation(project, assignment.id if assignment else None, current_user)
    db.session.commit()
    return redirect(
        url_for("projects.budget_recommendation_job", project_id=project.id, job_id=job_id)
    )


@bp.get("/<int:project_id>/budget-recommendation/jobs/<int:job_id>")
@roles_required(*MANAGERS)
def budget_recommendation_job(project_id: int, job_id: int):
    """The job's progress in percent, then the recommendation it found."""
    project, job = _job(project_id, job_id)
    advice = finished_recommendation(job)
    assignment_id = (job.result or {}).get("assignment_id")
    assignment = db.session.get(Assignment, assignment_id) if assignment_id else None
    return _shown(project, assignment, advice, job=job)


@bp.get("/<int:project_id>/budget-recommendation/jobs/<int:job_id>.csv")
@roles_required(*MANAGERS)
def budget_recommendation_job_csv(project_id: int, job_id: int):
    _, job = _job(project_id, job_id)
    advice = finished_recommendation(job)
    if advice is None:
        abort(404, "no recommendation (yet)")
    name = f"budget_recommendation_{project_id}_job{job_id}.csv"
    return charts.csv_response(*per_pair_table(advice), name)


def _job(project_id: int, job_id: int):
    project = owned_project(project_id)
    try:
        return project, recommendation_job(project, job_id, current_user)
    except LookupError as exc:
        abort(404, str(exc))


@bp.get("/<int:project_id>/budget-recommendation.csv")
@roles_required(*MANAGERS)
def budget_recommendation_csv(project_id: int):
    _, assignment_id, advice = _recommendation(project_id)
    if advice is None:
        abort(404, "no pairs yet")
    name = f"budget_recommendation_{project_id}{f'_{assignment_id}' if assignment_id else ''}.csv"
    return charts.csv_response(*per_pair_table(advice), name)
