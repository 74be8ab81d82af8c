"""Workers: the linkage grid and its JSON endpoints."""

from flask import Blueprint

from app.review.formatting import percent

bp = Blueprint("review", __name__)
bp.add_app_template_filter(percent, "percent")

from app.review import routes  # noqa: E402,F401
