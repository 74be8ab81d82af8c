"""Demo users and projects for ``flask demo`` and ``make run``."""

from __future__ import annotations

from sqlalchemy import func, select

from app.auth.services import create_user
from app.extensions import db
from app.models import User
from app.projects.assignments import assign_pairs
from app.projects.services import create_project

DEMO_USERS = [
    ("admin", "admin"),
    ("manager", "manager"),
    ("worker", "worker"),
    ("worker2", "worker"),
]

#: The paper's Table 2 (MINDFIRL/KAPR paper §4.3): Name, DOB, Race identifying; Income not.
PAPER_EXAMPLE = {
    "name": "Paper example (KAPR §4.3)",
    "kind": "dedupe",
    "attributes": [
        {"name": "name", "type": "string"},
        {"name": "dob", "type": "date"},
        {"name": "race", "type": "category"},
        {"name": "income", "type": "string", "sensitive": True},
    ],
    "records": [
        {"id": "1", "name": "Mary", "dob": "08/09/1964", "race": "Hispanic", "income": "69,426"},
        {"id": "2", "name": "Mark", "dob": "08/09/1964", "race": "Hispanic", "income": "38,001"},
        {"id": "3", "name": "Mary", "dob": "09/08/1964", "race": "Black", "income": "27,998"},
        {"id": "4", "name": "Mary", "dob": "09/08/1964", "race": "Black", "income": "27,989"},
    ],
    "kappa": 1,
    "evidence_model": "row",
    "default_budget": 0.5,
}


def load_demo(if_empty: bool = False) -> list[tuple[str, str, str]]:
    """Create the demo users and projects; return (username, role, password) per user."""
    if if_empty and db.session.scalar(select(func.count()).select_from(User)):
        return []
    logins = [(name, role, create_user(name, role)[1]) for name, role in DEMO_USERS]
    users = {u.username: u for u in db.session.scalars(select(User)).all()}
    project = create_project(PAPER_EXAMPLE, owner=users["manager"])
    assign_pairs(project, users["worker"], budget=0.5)
    assign_pairs(project, users["worker2"], budget=0.2)
    return logins
