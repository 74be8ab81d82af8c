"""The custodian's JSON: accountability reports and the close-out of a project."""

from app.api.custody import accountability, closeout  # noqa: F401 (registers the routes)

__all__ = ["accountability", "closeout"]
