"""The one owner rule: who may read a project and who may change it, browser and API alike.

Every project has one accountable owner, the manager who made it (README, "Roles"). The rule:

- **change** (blocking, rounds, assignments and their budgets, the conflict policy and its
  resolver budget, referral, resolution and resolution reveals, settings, scoring, deletion,
  identifying exports): the owner, while a manager. Nobody else, admins included: an admin
  who needs a change works through the manager, so every disclosure decision has one owner.
- **read** (overview, progress, conflicts queue, reports, non-identifying exports): the
  owner and every admin.
- everyone else (other managers, workers, the anonymous): nothing.

The pages (``app.projects.views.access``) and the JSON API (``app.api``) both ask
:func:`project_access`; ``tests/projects/test_ownership_matrix.py`` runs one role matrix over
the routes of both.
"""

from __future__ import annotations

import enum

from app.models import Project, ProjectState, Role

__all__ = ["Access", "project_access"]


class Access(enum.IntEnum):
    """What a user may do with a project; a higher level includes the lower ones."""

    NONE = 0
    READ = 1
    CHANGE = 2


def project_access(user, project: Project) -> Access:
    """The access ``user`` (a ``User``, Flask-Login's anonymous user or None) has to it."""
    if user is None or not getattr(user, "is_authenticated", False):
        return Access.NONE
    if project.state == ProjectState.CHECKS:  # a project's synthetic checks: nobody's to open
        return Access.NONE
    if project.owner_id == user.id and user.role == Role.MANAGER:
        return Access.CHANGE
    if user.role == Role.ADMIN:
        return Access.READ
    return Access.NONE
