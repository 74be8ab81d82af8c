"""The managers' pages (thin: parse, call a service, render) and their helpers."""

from app.projects.views import conflicts, new, overview, work  # noqa: F401 (registers the routes)
from app.projects.views.blueprint import bp

__all__ = ["bp"]
