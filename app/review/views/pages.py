"""Workers' pages: the list of assignments and the linkage page (a shell the JS fills)."""

from flask import abort, render_template, request
from flask_login import current_user
from sqlalchemy import select

from app.auth.decorators import roles_required
from app.core.disclosure import SYMBOLS
from app.extensions import db
from app.models import Assignment
from app.review.answers import (
    NotInAssignment,
    own_assignment,
    page_count,
    progress,
    resume_page,
)
from app.review.views.blueprint import bp

#: The legend of the linkage page: (mark, glyph, meaning), glyphs from the disclosure engine.
LEGEND = [
    ("hidden", SYMBOLS[None], "a character not disclosed"),
    ("identical", SYMBOLS["identical"], "identical values"),
    ("different", SYMBOLS["different"], "different values"),
    ("missing", SYMBOLS["missing"], "missing value"),
    ("substitution", SYMBOLS["substitution"], "substitution: a character replaced"),
    ("indel", SYMBOLS["indel"], "insertion or deletion of a character"),
    ("transposition", SYMBOLS["transposition"], "transposition: two characters swapped"),
    ("name_swap", SYMBOLS["name_swap"], "first and last names swapped"),
    ("date_swap", SYMBOLS["date_swap"], "month and day swapped"),
    ("frequency", "\u0192", "frequency of the name: unique, rare, common, very common"),
]


@bp.route("/")
@roles_required("worker")
def home():
    assignments = db.session.scalars(
        select(Assignment).where(Assignment.worker_id == current_user.id).order_by(Assignment.id)
    ).all()
    rows = [(a, *progress(a.id), resume_page(a)) for a in assignments]
    return render_template("review/home.html", rows=rows)


@bp.route("/assignments/<int:assignment_id>")
@roles_required("worker")
def linkage_page(assignment_id: int):
    try:
        assignment = own_assignment(assignment_id, current_user)
    except NotInAssignment:
        abort(404)
    except PermissionError:
        abort(403)
    pages = page_count(len(assignment.pairs), assignment.project.page_size)
    page = request.args.get("page", type=int) or resume_page(assignment)
    if not 1 <= page <= pages:
        abort(404)
    return render_template(
        "review/page.html", assignment=assignment, page=page, pages=pages, symbols=LEGEND
    )
