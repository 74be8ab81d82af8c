"""The workers' Blueprint, alone so that every page module can register on it."""

from flask import Blueprint

from app.review.views.formatting import percent

bp = Blueprint("review", __name__)
bp.add_app_template_filter(percent, "percent")
