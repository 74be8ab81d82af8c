"""The account pages: a user's own account, and the admins' administration of accounts."""

from app.auth.views import account, admin  # noqa: F401 (registers the pages)
from app.auth.views.account import require_new_password

__all__ = ["require_new_password"]  # the pages register on app.auth's Blueprint
