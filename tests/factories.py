"""Build users, projects and assignments for tests through the real services."""

from __future__ import annotations

import copy

from app.auth.services import create_user, issue_token
from app.demo import PAPER_EXAMPLE
from app.extensions import db
from app.projects.lifecycle import create_project
from app.projects.staffing import assign_pairs

PASSWORD = "correct horse battery"


def make_user(username: str, role: str = "worker"):
    user, _ = create_user(username, role, PASSWORD)
    db.session.commit()
    return user


def make_token(user) -> str:
    token = issue_token(user)
    db.session.commit()
    return token


def paper_project(owner, **overrides):
    spec = copy.deepcopy(PAPER_EXAMPLE)
    spec.update(overrides)
    project = create_project(spec, owner)
    db.session.commit()
    return project


def make_assignment(project, worker, budget: float = 1.0, pairs="all"):
    assignment = assign_pairs(project, worker, budget, pairs)
    db.session.commit()
    return assignment
