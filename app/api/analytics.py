"""Admins' JSON: the KAPR report and job status (for scripts and the job page's poll)."""

from flask import abort, jsonify

from app.analytics.kapr import kapr_report
from app.api.blueprint import bp
from app.api.openapi import documented, schemas
from app.auth.decorators import roles_required
from app.extensions import db
from app.models import Job


@bp.route("/admin/reports/kapr")
@roles_required("admin")
@documented("The KAPR report of every project (admins)", ok=schemas.OBJECT)
def admin_kapr_report():
    return jsonify(kapr_report().as_dict())


@bp.route("/admin/jobs/<int:job_id>")
@roles_required("admin")
@documented("A background job's status (admins)", ok=schemas.JOB)
def admin_job(job_id: int):
    job = db.session.get(Job, job_id)
    if job is None:
        abort(404, "no such job")
    return jsonify(
        id=job.id,
        kind=job.kind,
        status=job.status,
        progress_done=job.progress_done,
        progress_total=job.progress_total,
        result=job.result if job.status == "done" else None,
        error=job.error,
        # the CLI's --json object, for jobs that have one (trajectory risk)
        report=(job.result or {}).get("report") if job.status == "done" else None,
    )
