"""Account administration over JSON: the admins' accounts and everyone's own API tokens."""

from app.api.accounts import routes  # noqa: F401 (registers the routes)

__all__ = ["routes"]
