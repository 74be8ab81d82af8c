"""Admins: batch risk reports, trajectory record linkage, belief audits, jobs, users."""

from flask import Blueprint

bp = Blueprint("analytics", __name__)

from app.analytics import routes, routes_belief, trajectory_charts  # noqa: E402,F401
