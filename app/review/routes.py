"""Workers' pages."""

from flask import render_template
from flask_login import current_user
from sqlalchemy import select

from app.auth.decorators import roles_required
from app.extensions import db
from app.models import Assignment
from app.review import bp


@bp.route("/")
@roles_required("worker")
def home():
    assignments = db.session.scalars(
        select(Assignment).where(Assignment.worker_id == current_user.id).order_by(Assignment.id)
    ).all()
    return render_template("review/home.html", assignments=assignments)
