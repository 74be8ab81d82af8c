"""Managers: import, blocking, pairs, assignments, conflicts and exports."""

from flask import Blueprint

bp = Blueprint("projects", __name__)

from app.projects import routes  # noqa: E402,F401
