"""Managers' pages: the project list, a project's overview, exports and deletion."""

from __future__ import annotations

from flask import flash, redirect, render_template, request, url_for
from flask_login import current_user
from sqlalchemy import func, select

from app.auth.decorators import roles_required
from app.extensions import db
from app.models import Assignment, Pair, Project
from app.projects.exports import KINDS
from app.projects.lifecycle import delete_project
from app.projects.views.access import MANAGERS, export_download, owned_project
from app.projects.views.blueprint import bp


@bp.route("/")
@roles_required(*MANAGERS)
def home():
    query = select(Project).order_by(Project.created_at.desc())
    if current_user.role == "manager":
        query = query.where(Project.owner_id == current_user.id)
    projects = db.session.scalars(query).all()
    return render_template("projects/home.html", projects=projects)


@bp.route("/<int:project_id>")
@roles_required(*MANAGERS)
def project(project_id: int):
    project = owned_project(project_id)
    pairs = db.session.scalar(select(func.count(Pair.id)).where(Pair.project_id == project.id))
    assignments = db.session.scalars(
        select(Assignment).where(Assignment.project_id == project.id).order_by(Assignment.id)
    ).all()
    return render_template(
        "projects/project.html", project=project, pairs=pairs, assignments=assignments,
        kinds=KINDS,
    )  # fmt: skip


@bp.route("/<int:project_id>/export/<kind>")
@roles_required(*MANAGERS)
def export(project_id: int, kind: str):
    return export_download(owned_project(project_id), kind)


@bp.route("/<int:project_id>/delete", methods=["GET", "POST"])
@roles_required(*MANAGERS)
def delete(project_id: int):
    project = owned_project(project_id)
    if request.method == "GET":
        return render_template("projects/delete.html", project=project)
    if request.form.get("confirm_name", "").strip() != project.name:
        flash("Type the project's name exactly to confirm.", "error")
        return render_template("projects/delete.html", project=project), 400
    name = project.name
    delete_project(project)
    db.session.commit()
    flash(f"Project {name!r} and all its records, pairs and answers were deleted.", "info")
    return redirect(url_for("projects.home"))
