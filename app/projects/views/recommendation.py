"""The budget recommendation as a page: percentages of the maximum KAPR, exact on demand.

Scripts read the same numbers as exact fractions from ``GET /api/v1/projects/<id>/
budget-recommendation``; people get this page and its CSV.
"""

from __future__ import annotations

from flask import abort, render_template, request

from app import charts
from app.auth.decorators import roles_required
from app.extensions import db
from app.models import Assignment
from app.projects.staffing.recommendation import distribution_chart, per_pair_table, recommend_for
from app.projects.views.access import MANAGERS, owned_project
from app.projects.views.blueprint import bp


def _recommendation(project_id: int):
    project = owned_project(project_id)
    assignment_id = request.args.get("assignment", type=int)
    if "assignment" in request.args and assignment_id is None:
        abort(400, "'assignment' must be an assignment id")
    try:
        advice = recommend_for(project, assignment_id)
    except LookupError as exc:
        abort(404, str(exc))
    return project, assignment_id, advice


@bp.get("/<int:project_id>/budget-recommendation")
@roles_required(*MANAGERS)
def budget_recommendation_page(project_id: int):
    """All the project's pairs, or ``?assignment=<id>``'s (it prices every pair: ~1 ms each)."""
    project, assignment_id, advice = _recommendation(project_id)
    assignment = db.session.get(Assignment, assignment_id) if assignment_id else None
    return render_template(
        "projects/recommendation.html", project=project, advice=advice, assignment=assignment,
        advice_chart=distribution_chart(advice) if advice else None,
    )  # fmt: skip


@bp.get("/<int:project_id>/budget-recommendation.csv")
@roles_required(*MANAGERS)
def budget_recommendation_csv(project_id: int):
    _, assignment_id, advice = _recommendation(project_id)
    if advice is None:
        abort(404, "no pairs yet")
    name = f"budget_recommendation_{project_id}{f'_{assignment_id}' if assignment_id else ''}.csv"
    return charts.csv_response(*per_pair_table(advice), name)
