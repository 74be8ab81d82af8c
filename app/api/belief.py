"""Admins' JSON: belief-function computations and the re-identification audit of a project."""

from flask import abort, jsonify, request

from app.analytics.belief import (
    AuditError,
    BeliefRequestError,
    audit_upload,
    evaluate,
    project_audit,
)
from app.api.blueprint import bp
from app.api.openapi import documented, schemas
from app.auth.decorators import roles_required


@bp.route("/analytics/belief", methods=["POST"])
@roles_required("admin")
@documented("Belief-function computations (admins)", body=schemas.OBJECT, ok=schemas.OBJECT)
def analytics_belief():
    body = request.get_json(silent=True)
    if body is None:
        abort(400, "send a JSON object (Content-Type: application/json)")
    try:
        return jsonify(evaluate(body))
    except BeliefRequestError as exc:
        abort(400, str(exc))


@bp.route("/admin/projects/<int:project_id>/audit")
@roles_required("admin")
@documented(
    "The re-identification audit of a project (admins)",
    ok=schemas.OBJECT,
    query={
        "assignment": {"type": "integer", "minimum": 1, "maximum": 2**31 - 1},
        "model": {"type": "string", "maxLength": 40},
    },
)
def admin_project_audit(project_id: int):
    assignment = request.args.get("assignment", type=int)
    try:
        return jsonify(project_audit(project_id, request.args.get("model"), assignment))
    except AuditError as exc:
        abort(404 if str(exc).startswith("no ") else 400, str(exc))


@bp.route("/analytics/belief/links", methods=["POST"])
@roles_required("admin")
@documented("Audit a linkage output, JSON or CSV text (admins)", ok=schemas.OBJECT, errors=(400,))
def analytics_belief_links():
    """Audit a linkage output: a JSON body, or CSV text (Content-Type: text/csv)."""
    text = request.get_data(as_text=True)
    name = "upload.csv" if request.mimetype == "text/csv" else "upload.json"
    try:
        return jsonify(audit_upload(text, name))
    except BeliefRequestError as exc:
        abort(400, str(exc))
