"""Admins' downloads of a finished trajectory risk job's charts, as CSV or JSON."""

from __future__ import annotations

from flask import abort, jsonify

from app import charts
from app.analytics.trajectory import job_charts
from app.analytics.views.blueprint import bp
from app.auth.decorators import roles_required
from app.extensions import db
from app.models import Job


def _result(job_id: int) -> dict:
    job = db.session.get(Job, job_id)
    if job is None or job.kind != "trajectory_risk" or job.status != "done":
        abort(404)
    return job.result


@bp.get("/jobs/<int:job_id>/trajectory/<name>.<ext>")
@roles_required("admin")
def trajectory_chart_data(job_id: int, name: str, ext: str):
    spec = job_charts(_result(job_id)).get(name)
    if spec is None or ext not in ("csv", "json"):
        abort(404)
    if ext == "json":
        response = jsonify(spec)
        response.headers["Cache-Control"] = "no-store"
        return response
    return charts.spec_csv_response(spec, f"job{job_id}_{name}.csv")
