"""Admins' trajectory record-linkage risk over the API: start a job, cancel a job.

``POST /api/v1/analytics/trajectory-risk`` takes the same multipart form as the admin page
(files ``original`` and ``anonymized``; options ``distance``, ``search``, ``window_percent``,
``lam``, ``compare_exact``, ``sweep``, ``top``), checks everything before a job exists and
answers 202 with the job's id; ``GET /api/v1/admin/jobs/<id>`` then returns the CLI's JSON
as ``report`` once the job is done.
"""

from __future__ import annotations

from flask import abort, jsonify, request, url_for
from flask_login import current_user

from app import jobs
from app.analytics.trajectory import OptionsError, read_uploads, trajectory_risk
from app.api.blueprint import bp
from app.api.openapi import documented, schemas
from app.auth.decorators import roles_required
from app.core.trajectory.model import TrajectoryFormatError


@bp.post("/analytics/trajectory-risk")
@roles_required("admin")
@documented(
    "Start a trajectory record-linkage risk job (multipart: original, anonymized, options)",
    ok=schemas.OBJECT,
    status=202,
    errors=(400,),
)
def trajectory_risk_job():
    try:
        options, texts, names = read_uploads(request.form, request.files)
    except (OptionsError, TrajectoryFormatError) as exc:
        abort(400, str(exc))
    job_id = jobs.submit(
        "trajectory_risk", trajectory_risk, *texts, options, names, created_by=current_user.id
    )
    url = url_for("api.admin_job", job_id=job_id)
    return jsonify(job_id=job_id, status_url=url), 202, {"Location": url}


@bp.post("/admin/jobs/<int:job_id>/cancel")
@roles_required("admin")
@documented("Cancel a queued or running job", ok=schemas.OBJECT, errors=(409,))
def cancel_job(job_id: int):
    if not jobs.cancel(job_id):
        abort(409, "the job has already finished (or does not exist)")
    return jsonify(id=job_id, status="cancelled")
