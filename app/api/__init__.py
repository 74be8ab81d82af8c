"""The versioned JSON API (``/api/v1``): errors are JSON, never HTML."""

from flask import Blueprint

bp = Blueprint("api", __name__)

from app.api.openapi import register_openapi_route  # noqa: E402

register_openapi_route(bp)

from app.api import (  # noqa: E402,F401
    analytics,
    belief,
    decisions,
    manage,
    projects,
    review,
    routes,
    trajectory,
)
