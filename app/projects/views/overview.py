"""Managers' pages: the project list, a project's overview, exports and deletion."""

from __future__ import annotations

from flask import flash, redirect, render_template, request, url_for
from flask_login import current_user
from sqlalchemy import func, select

from app.auth.decorators import roles_required
from app.extensions import db
from app.models import Assignment, Pair, User
from app.projects.exports import KINDS
from app.projects.lifecycle import delete_project
from app.projects.progress.listing import project_summaries, visible_projects
from app.projects.triage.summary import round_summaries
from app.projects.views.access import (
    MANAGERS,
    changeable_project,
    export_download,
    owned_project,
)
from app.projects.views.blueprint import bp


@bp.route("/")
@roles_required(*MANAGERS)
def home():
    """A manager's projects (an admin's: everyone's) with their counts and progress."""
    me = db.session.get(User, current_user.id)
    return render_template("projects/home.html", summaries=project_summaries(visible_projects(me)))


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
        kinds=KINDS, rounds=round_summaries(project),
    )  # fmt: skip


@bp.route("/<int:project_id>/export/<kind>")
@roles_required(*MANAGERS)
def export(project_id: int, kind: str):
    return export_download(owned_project(project_id), kind)


@bp.route("/<int:project_id>/delete", methods=["GET", "POST"])
@roles_required(*MANAGERS)
def delete(project_id: int):
    project = changeable_project(project_id)
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


@bp.post("/<int:project_id>/advice")
@roles_required("manager")
def advice_hint(project_id: int):
    """The advisor's hint on the workers' page (off by default) and its reviewer model."""
    project = changeable_project(project_id)
    reviewer = request.form.get("advice_reviewer", project.advice_reviewer)
    if reviewer not in ("human", "evidence"):
        flash("Choose the human or the evidence reviewer model.", "error")
        return redirect(url_for("projects.project", project_id=project.id))
    project.advice_hint = request.form.get("advice_hint") == "on"
    project.advice_reviewer = reviewer
    db.session.commit()
    state = "now see" if project.advice_hint else "no longer see"
    flash(f"Workers {state} the advisor's suggested cell.", "info")
    return redirect(url_for("projects.project", project_id=project.id))
