"""The new-project pages: upload, the column mapping, its problems."""

from app.projects.views.new import upload  # noqa: F401 (registers the routes)

__all__ = ["upload"]
