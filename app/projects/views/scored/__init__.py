"""The pages of scored pairs: the project's own Splink model and the triage of predictions."""

from app.projects.views.scored import scoring, triage  # noqa: F401 (registers the routes)

__all__ = ["scoring", "triage"]
