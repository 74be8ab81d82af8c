"""Demo users and projects for ``flask demo`` and ``make run``."""

from __future__ import annotations

import secrets

from sqlalchemy import func, select

from app.auth.services import create_user
from app.datagen import generate
from app.extensions import db
from app.models import User
from app.projects.blocking import candidate_pairs, parse_rules
from app.projects.lifecycle import create_project
from app.projects.staffing import assign_pairs, assign_workers

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


#: A deduplication project of synthetic voters (app.datagen: typos, swaps, missing values,
#: twins), blocked on last name and first initial and double-coded by both demo workers, so
#: the conflicts queue, agreement and exports have something to show.
SYNTHETIC_RECORDS = 600
SYNTHETIC_BLOCKING = [["last_name", ["first_name", "first_n", 1]]]
_IDENTIFYING = {
    "voter_reg_num": "id", "first_name": "string", "last_name": "string",
    "dob": "date", "sex": "category", "race": "category",
}  # fmt: skip


def synthetic_project() -> dict:
    """The synthetic voters' project spec (seeded: the same records on every machine)."""
    columns = generate(SYNTHETIC_RECORDS, seed=2026)
    keep = ("id", *_IDENTIFYING, "income", "diagnosis")  # not the true cluster ids
    records = [{name: str(columns[name][i]) for name in keep} for i in range(SYNTHETIC_RECORDS)]
    by_id = {r["id"]: r for r in records}
    pairs = candidate_pairs(by_id, None, parse_rules(SYNTHETIC_BLOCKING, list(_IDENTIFYING)))
    return {
        "name": f"Synthetic voters (dedupe, {SYNTHETIC_RECORDS} records)",
        "kind": "dedupe",
        "attributes": [{"name": n, "type": t} for n, t in _IDENTIFYING.items()]
        + [{"name": n, "type": "string", "sensitive": True} for n in ("income", "diagnosis")],
        "records": records,
        "pairs": [[a, b] for a, b, _rule in pairs],
        "kappa": 1,
        "evidence_model": "row",
        "default_budget": 0.3,
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
    synthetic = create_project(synthetic_project(), owner=users["manager"])
    assign_workers(synthetic, {"worker": 0.3, "worker2": 0.3}, coders=2, page_size=10)
    return logins


def reset_demo_logins() -> list[tuple[str, str, str]]:
    """Give the demo users new passwords (and their demo role, active); return the logins.

    For when the printed logins are lost: nothing else changes (projects, answers, other
    users). A demo user that was removed or renamed is created again. Each change is audited
    as done on the command line; the users' sessions end.
    """
    from app.auth import audit
    from app.auth.services import end_sessions

    logins = []
    for name, role in DEMO_USERS:
        user = db.session.scalar(select(User).where(User.username == name))
        if user is None:
            logins.append((name, role, create_user(name, role)[1]))
            continue
        password = secrets.token_urlsafe(12)
        user.set_password(password)
        user.must_change_password = False
        user.failed_logins = 0
        audit.record(user, "password_reset", by=None, via="cli", detail="demo login")
        if not user.active:
            user.active = True
            audit.record(user, "activated", by=None, via="cli", detail="demo login")
        if user.role != role:
            audit.record(user, "role_changed", by=None, via="cli", detail=f"{user.role} -> {role}")
            user.role = role
        end_sessions(user)
        logins.append((name, role, password))
    db.session.flush()
    return logins
