"""The versioned JSON API (``/api/v1``): errors are JSON, never HTML."""

from flask import Blueprint

bp = Blueprint("api", __name__)

from app.api import routes  # noqa: E402,F401
from app.api import projects  # noqa: E402,F401
from app.api import review  # noqa: E402,F401
from app.api import decisions  # noqa: E402,F401
from app.api import manage  # noqa: E402,F401
from app.api import analytics  # noqa: E402,F401
