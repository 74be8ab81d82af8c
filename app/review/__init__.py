"""Workers: the linkage grid and its JSON endpoints."""

from flask import Blueprint

bp = Blueprint("review", __name__)

from app.review import routes  # noqa: E402,F401
