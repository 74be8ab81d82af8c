"""Login, logout, roles and API tokens."""

from app.auth import routes  # noqa: F401 (registers the pages)
from app.auth.blueprint import bp

__all__ = ["bp"]
