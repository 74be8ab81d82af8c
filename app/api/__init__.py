"""The versioned JSON API (``/api/v1``): errors are JSON, never HTML."""

from app.api.blueprint import bp
from app.api.openapi import register_openapi_route

register_openapi_route(bp)

from app.api import (  # noqa: E402,F401  (registers the routes, after the document's)
    accounts,
    analytics,
    belief,
    custody,
    decisions,
    manage,
    pairs,
    projects,
    review,
    routes,
    trajectory,
)

__all__ = ["bp"]
