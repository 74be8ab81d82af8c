"""What reviewers answered and how far a project is: outcomes, agreement, per-worker progress."""

from app.projects.progress.summary import project_progress

__all__ = ["project_progress"]
