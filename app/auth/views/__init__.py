"""The account pages: a user's own account, and the admins' administration of accounts."""

from app.auth.views import account, admin  # noqa: F401 (registers the pages)
