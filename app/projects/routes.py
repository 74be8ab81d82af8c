"""Managers' pages."""

from flask import render_template
from flask_login import current_user
from sqlalchemy import select

from app.auth.decorators import roles_required
from app.extensions import db
from app.models import Project
from app.projects import bp


@bp.route("/")
@roles_required("manager", "admin")
def home():
    query = select(Project).order_by(Project.created_at.desc())
    if current_user.role == "manager":
        query = query.where(Project.owner_id == current_user.id)
    projects = db.session.scalars(query).all()
    return render_template("projects/home.html", projects=projects)
