"""The admins' pages (thin: parse, call a service, render): reports, audits, trajectory risk."""

from app.analytics.views import audits, reports, trajectory  # noqa: F401 (registers the routes)
from app.analytics.views.blueprint import bp

__all__ = ["bp"]
