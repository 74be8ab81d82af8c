"""The workers' pages: the list of assignments and the linkage page (the JS fills it)."""

from app.review.views import pages  # noqa: F401 (registers the routes)
from app.review.views.blueprint import bp

__all__ = ["bp"]
