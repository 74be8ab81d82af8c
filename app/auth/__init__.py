"""Login, logout, roles, API tokens and the administration of accounts."""

from app.auth import (
    routes,  # noqa: F401 (registers the pages)
    views,  # noqa: F401 (the account and administration pages)
)
from app.auth.blueprint import bp

__all__ = ["bp"]
