"""Admins' pages."""

from flask import render_template
from sqlalchemy import func, select

from app.analytics import bp
from app.auth.decorators import roles_required
from app.extensions import db
from app.models import Assignment, Project, User


@bp.route("/")
@roles_required("admin")
def home():
    counts = {
        "users": db.session.scalar(select(func.count()).select_from(User)),
        "projects": db.session.scalar(select(func.count()).select_from(Project)),
        "assignments": db.session.scalar(select(func.count()).select_from(Assignment)),
    }
    users = db.session.scalars(select(User).order_by(User.username)).all()
    return render_template("analytics/home.html", counts=counts, users=users)
