"""The managers' pages (thin: parse, call a service, render) and their helpers."""

from app.projects.views import (  # noqa: F401 (registers the routes)
    conflicts,
    new,
    overview,
    quality,
    recommendation,
    release,
    scored,
    utility,
    work,
)
from app.projects.views.blueprint import bp

__all__ = ["bp"]
