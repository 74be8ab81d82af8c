"""The versioned JSON API (``/api/v1``): errors are JSON, never HTML."""

from flask import Blueprint

bp = Blueprint("api", __name__)

from app.api import analytics, belief, decisions, manage, projects, review, routes  # noqa: E402,F401
