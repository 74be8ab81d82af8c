"""Accountability pages: who saw what of whom, per project and across projects."""

from __future__ import annotations

from flask import abort, jsonify, render_template, request

from app import charts
from app.auth.decorators import roles_required
from app.projects.custody import (
    COLUMNS,
    RecordNotFound,
    disclosure_chart,
    disclosure_summary,
    project_disclosures,
    record_disclosures,
    summaries,
)
from app.projects.custody.summary import OUTCOMES
from app.projects.views.access import MANAGERS, owned_project
from app.projects.views.blueprint import bp


@bp.route("/<int:project_id>/accountability")
@roles_required(*MANAGERS)
def accountability(project_id: int):
    """The project's people by what was disclosed, and one record's disclosures."""
    project = owned_project(project_id)
    summary = disclosure_summary(project)
    source, record = request.args.get("source", "A"), request.args.get("record", "").strip()
    found, problem = None, None
    if record:
        try:
            found = record_disclosures(project, source, record[:100])
        except RecordNotFound as exc:
            problem = str(exc)
    return render_template(
        "projects/accountability.html", project=project, summary=summary,
        people_chart=disclosure_chart(summary), outcomes=OUTCOMES, found=found, problem=problem,
        source=source, record=record, sources=list(project.sources),
    )  # fmt: skip


@bp.route("/<int:project_id>/accountability/disclosures.<ext>")
@roles_required(*MANAGERS)
def accountability_download(project_id: int, ext: str):
    """Every disclosure of the project: ``.csv`` (one row each) or ``.json`` (with the
    summary)."""
    project = owned_project(project_id)
    items = list(project_disclosures(project))
    if ext == "csv":
        rows = (d.row() for d in items)
        return charts.csv_response(COLUMNS, rows, f"accountability_{project.id}.csv")
    if ext != "json":
        abort(404, "downloads are .csv or .json")
    body = {
        "summary": disclosure_summary(project).as_json(),
        "disclosures": [d.as_json() for d in items],
    }
    return jsonify(body)


@bp.route("/<int:project_id>/accountability/chart.csv")
@roles_required(*MANAGERS)
def accountability_chart(project_id: int):
    spec = disclosure_chart(disclosure_summary(owned_project(project_id)))
    return charts.spec_csv_response(spec, f"accountability_{project_id}_chart.csv")


@bp.route("/accountability")
@roles_required("admin")
def accountability_all():
    """Admins: every project's people by what was disclosed (``?format=csv``)."""
    found = summaries()
    if request.args.get("format") == "csv":
        header = ["project", "name", "closed", "records", "reveals", "attribute", *OUTCOMES]
        rows = [
            [s.project_id, s.name, s.closed, s.records, s.reveals, *row]
            for s in found
            for row in s.rows()
        ]
        return charts.csv_response(header, rows, "accountability.csv")
    return render_template("projects/accountability_all.html", summaries=found, outcomes=OUTCOMES)
