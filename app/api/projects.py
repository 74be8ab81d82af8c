"""Project endpoints for managers' scripts: list and create projects, assign pairs."""

from __future__ import annotations

from flask import abort, current_app, jsonify, request
from flask_login import current_user
from sqlalchemy import select

from app.analytics.utility import TruthError, resolve_truth, risk_utility
from app.api.blueprint import bp
from app.api.inputs import check_record_sizes
from app.api.openapi import documented, schemas
from app.api.openapi.projects import PROJECT_CREATED, assignment_spec, project_spec
from app.auth.decorators import roles_required
from app.extensions import db
from app.models import Round, User
from app.projects.lifecycle import ProjectSpecError
from app.projects.lifecycle.create import create_project_checked
from app.projects.progress.listing import project_summaries, visible_projects
from app.projects.quality import CheckError, parse_checks
from app.projects.staffing import AssignmentError, assign_pairs
from app.projects.staffing.recommendation import recommend_for
from app.projects.views.access import MANAGERS, changeable_project, owned_project
from app.projects.views.utility import truth_input

PROJECTS = {
    "type": "object",
    "required": ["projects"],
    "properties": {
        "projects": {
            "type": "array",
            "items": {"type": "object", "required": ["id", "name", "counts", "progress"]},
        }
    },
}


def json_body() -> dict:
    body = request.get_json(silent=True)
    if not isinstance(body, dict):
        abort(400, "the request body must be a JSON object")
    return body


@bp.get("/projects")
@roles_required(*MANAGERS)
@documented(
    "The caller's projects (an admin's: every project) with counts and progress",
    ok=PROJECTS,
)
def list_projects_view():
    """Records, pairs, assignments, answered and settled pairs, open conflicts per project."""
    me = db.session.get(User, current_user.id)
    return jsonify(projects=[s.as_dict() for s in project_summaries(visible_projects(me))])


@bp.post("/projects")
@roles_required("manager")
@documented("Create a project", body=project_spec, ok=PROJECT_CREATED, status=201)
def create_project_view():
    """Create a project; a refusal lists its first problems and counts them all (``total``)."""
    body = json_body()
    check_record_sizes(body, current_app.config["MAX_RECORD_CHARS"])
    try:
        project, prepared = create_project_checked(body, owner=current_user)
    except ProjectSpecError as exc:
        db.session.rollback()
        return jsonify(
            error="invalid_project", message=str(exc), problems=exc.problems, total=exc.total
        ), 400
    made = db.session.scalar(select(Round).where(Round.project_id == project.id))
    db.session.commit()
    missing = {"total": prepared.missing.total, "first": prepared.missing.items}
    answer = {"id": project.id, "invalid_dates_kept_missing": missing}
    if made is not None:
        answer.update(round=made.number, counts=made.counts, triage=made.triage)
    return jsonify(answer), 201


@bp.post("/projects/<int:project_id>/assignments")
@roles_required("manager")
@documented("Assign pairs to a worker", body=assignment_spec, ok=schemas.CREATED, status=201)
def create_assignment_view(project_id: int):
    project = changeable_project(project_id)
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
            round=body.get("round"),
            checks=parse_checks(body.get("checks")),
        )
    except (AssignmentError, CheckError) as exc:
        db.session.rollback()
        abort(400, str(exc))
    db.session.commit()
    return jsonify(id=assignment.id), 201


@bp.get("/projects/<int:project_id>/budget-recommendation")
@roles_required(*MANAGERS)
@documented(
    "The KAPR needed to open every discrepant cell at partial, per pair and its quantiles",
    ok=schemas.OBJECT,
    query={"assignment": {"type": "integer", "minimum": 1, "maximum": 2**31 - 1}},
    errors=(400, 404),
)
def budget_recommendation_view(project_id: int):
    """The all-partial KAPR of the project's pairs (or ``?assignment=<id>``'s) and quantiles."""
    project = owned_project(project_id)
    assignment = request.args.get("assignment", type=int)
    if "assignment" in request.args and assignment is None:
        abort(400, "'assignment' must be an assignment id")
    try:
        found = recommend_for(project, assignment)
    except LookupError as exc:
        abort(404, str(exc))
    if found is None:
        abort(404, "no pairs to recommend a budget for yet; block first")
    return jsonify(project=project.id, assignment=assignment, **found.as_dict())


@bp.route("/projects/<int:project_id>/risk-utility", methods=["GET", "POST"])
@roles_required(*MANAGERS)
@documented(
    "Accuracy, precision and recall per worker beside KAPR (ground truth by column or file)",
    ok=schemas.OBJECT,
    query={"column": {"type": "string", "maxLength": 100}},
    errors=(400, 404),
)
def risk_utility_view(project_id: int):
    """Per worker accuracy, precision, recall beside KAPR, against ``?column=`` or a file."""
    project = owned_project(project_id)
    try:
        truth, source = resolve_truth(project, *truth_input())
    except TruthError as exc:
        return jsonify(error="no_ground_truth", message=str(exc)), 400
    rows = risk_utility(project, truth)
    return jsonify(
        project=project.id,
        truth=source,
        truth_pairs=len(truth),
        workers=[r.as_dict() for r in rows],
    )
