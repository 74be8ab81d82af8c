"""The custodian's pages: the accountability report and the close-out, and the closed gate."""

from app.projects.custody.gate import refuse_closed_projects
from app.projects.custody.views import accountability, closeout  # noqa: F401 (routes)
from app.projects.views.blueprint import bp

bp.before_app_request(refuse_closed_projects)

__all__ = ["bp"]
