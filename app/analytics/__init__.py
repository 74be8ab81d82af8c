"""Admins: batch risk reports, trajectory record linkage, belief audits, jobs, users."""

from flask import Blueprint

bp = Blueprint("analytics", __name__)

from app.analytics import routes, routes_belief  # noqa: E402,F401
