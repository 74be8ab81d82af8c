"""Risk against utility: workers' accuracy beside their KAPR, against a project's ground truth."""

from __future__ import annotations

from flask import render_template, request

from app import charts
from app.analytics.utility import (
    CSV_HEADER,
    TruthError,
    csv_rows,
    default_truth_column,
    resolve_truth,
    risk_utility,
    utility_charts,
)
from app.auth.decorators import roles_required
from app.projects.views.access import MANAGERS, owned_project
from app.projects.views.blueprint import bp


def truth_input() -> tuple[str | None, bytes | None]:
    """The vault column named by the request, or the bytes of an uploaded truth file."""
    column = (request.values.get("column") or "").strip() or None
    upload = request.files.get("truth")
    return column, (upload.read() if upload and upload.filename else None)


@bp.route("/<int:project_id>/risk-utility", methods=["GET", "POST"])
@roles_required(*MANAGERS)
def risk_utility_page(project_id: int):
    project = owned_project(project_id)
    column, data = truth_input()
    shown = {"project": project, "column": column or default_truth_column(project)}
    try:
        truth, source = resolve_truth(project, column, data)
    except TruthError as exc:
        return render_template("projects/risk_utility.html", problem=str(exc), **shown), 400
    rows = risk_utility(project, truth)
    return render_template(
        "projects/risk_utility.html", rows=rows, charts=utility_charts(rows), source=source,
        truth_pairs=len(truth), uploaded=data is not None, problem=None, **shown,
    )  # fmt: skip


@bp.route("/<int:project_id>/risk-utility.csv", methods=["GET", "POST"])
@roles_required(*MANAGERS)
def risk_utility_csv(project_id: int):
    project = owned_project(project_id)
    try:
        truth, _ = resolve_truth(project, *truth_input())
    except TruthError as exc:
        return str(exc), 400, {"Content-Type": "text/plain; charset=utf-8"}
    rows = csv_rows(risk_utility(project, truth))
    return charts.csv_response(CSV_HEADER, rows, f"risk_utility_{project_id}.csv")


@bp.route("/<int:project_id>/risk-utility/<name>.csv")
@roles_required(*MANAGERS)
def risk_utility_chart_csv(project_id: int, name: str):
    """One of the page's charts (``kapr`` or ``characters``) as its own data table."""
    project = owned_project(project_id)
    try:
        truth, _ = resolve_truth(project, *truth_input())
    except TruthError as exc:
        return str(exc), 400, {"Content-Type": "text/plain; charset=utf-8"}
    specs = utility_charts(risk_utility(project, truth))
    if name not in specs:
        return "no such chart", 404, {"Content-Type": "text/plain; charset=utf-8"}
    return charts.spec_csv_response(specs[name], f"risk_utility_{project_id}_{name}.csv")
