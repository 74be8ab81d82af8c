"""Project endpoints for managers' scripts: create a project, assign pairs."""

from __future__ import annotations

from flask import abort, current_app, jsonify, request
from flask_login import current_user
from sqlalchemy import select

from app.api import bp, schemas
from app.api.inputs import check_record_sizes
from app.api.openapi import documented
from app.auth.decorators import roles_required
from app.extensions import db
from app.models import User
from app.projects.lifecycle import ProjectSpecError, create_project
from app.projects.staffing import AssignmentError, assign_pairs
from app.projects.views.access import owned_project


def json_body() -> dict:
    body = request.get_json(silent=True)
    if not isinstance(body, dict):
        abort(400, "the request body must be a JSON object")
    return body


@bp.post("/projects")
@roles_required("manager")
@documented("Create a project", body=schemas.project_spec, ok=schemas.CREATED, status=201)
def create_project_view():
    body = json_body()
    check_record_sizes(body, current_app.config["MAX_RECORD_CHARS"])
    try:
        project = create_project(body, owner=current_user)
    except ProjectSpecError as exc:
        db.session.rollback()
        return jsonify(error="invalid_project", message=str(exc), problems=exc.problems), 400
    db.session.commit()
    return jsonify(id=project.id), 201


@bp.post("/projects/<int:project_id>/assignments")
@roles_required("manager")
@documented(
    "Assign pairs to a worker", body=schemas.assignment_spec, ok=schemas.CREATED, status=201
)
def create_assignment_view(project_id: int):
    project = owned_project(project_id)
    body = json_body()
    worker = db.session.scalar(select(User).where(User.username == str(body.get("worker"))))
    if worker is None:
        abort(400, f"no user {body.get('worker')!r}")
    try:
        assignment = assign_pairs(
            project,
            worker,
            body.get("budget", project.default_budget),
            body.get("pairs", "all"),
            start_partial=body.get("start_partial", []),
        )
    except AssignmentError as exc:
        db.session.rollback()
        abort(400, str(exc))
    db.session.commit()
    return jsonify(id=assignment.id), 201
