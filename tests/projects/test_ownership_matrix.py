"""One role matrix over the browser's and the API's project routes (issue 28, point 5).

The rule is :mod:`app.projects.ownership`: the owning manager changes a project, admins read
it, nobody else touches it. Every route below is tried by every role; a refused request must
change nothing, the owner's change must change something.
"""

from __future__ import annotations

import pytest
from sqlalchemy import func, select

from app.extensions import db
from app.models import Assignment, ConflictResolution, Project
from tests.factories import PASSWORD, make_assignment, make_token, make_user, paper_project
from tests.projects.conftest import decide

ROLES = ("owner", "other_manager", "admin", "worker", "anonymous")
USERS = {"owner": "mia", "other_manager": "ola", "admin": "ada", "worker": "wes"}
# what each role gets: allowed, refused (403), or sent to log in (401 / the login page)
EXPECTED = {
    "change": {"owner": "allowed", "other_manager": "refused", "admin": "refused",
               "worker": "refused", "anonymous": "login"},
    "read": {"owner": "allowed", "other_manager": "refused", "admin": "allowed",
             "worker": "refused", "anonymous": "login"},
}  # fmt: skip
P, A = "{project}", "{assignment}"
# (surface, level, method, path, body, whether the owner's request changes the project)
ROUTES = [
    ("browser", "change", "POST", f"/projects/{P}/assignments",
     {"worker-wil": "on", "budget-wil": "100"}, True),
    ("browser", "change", "POST", f"/projects/{P}/assignments/{A}/budget", {"budget": "70"}, True),
    ("browser", "change", "POST", f"/projects/{P}/conflicts/policy",
     {"policy": "manager", "resolver_budget": "20"}, True),
    ("browser", "change", "POST", f"/projects/{P}/conflicts/4/resolve", {"decision": "same"}, True),
    ("browser", "change", "POST", f"/projects/{P}/conflicts/bulk",
     {"pair": "4", "decision": "different"}, True),
    ("browser", "change", "POST", f"/projects/{P}/show-scores", {"show_scores": "on"}, True),
    ("browser", "change", "GET", f"/projects/{P}/export/linked", None, False),
    ("browser", "change", "GET", f"/projects/{P}/release-risk", None, False),
    ("browser", "read", "GET", f"/projects/{P}/progress", None, False),
    ("browser", "read", "GET", f"/projects/{P}/conflicts", None, False),
    ("api", "change", "POST", f"/api/v1/projects/{P}/assignments",
     {"worker": "wil", "budget": 1.0}, True),
    ("api", "change", "POST", f"/api/v1/projects/{P}/assignments/{A}/budget",
     {"budget": 0.7}, True),
    ("api", "change", "POST", f"/api/v1/projects/{P}/conflicts/policy",
     {"policy": "manager", "resolver_budget": 0.2}, True),
    ("api", "change", "POST", f"/api/v1/projects/{P}/conflicts/4/resolve",
     {"decision": "same"}, True),
    ("api", "change", "POST", f"/api/v1/projects/{P}/conflicts/bulk",
     {"pairs": [4], "decision": "different"}, True),
    ("api", "change", "POST", f"/api/v1/projects/{P}/settings", {"show_scores": True}, True),
    ("api", "change", "GET", f"/api/v1/projects/{P}/export/linked", None, False),
    ("api", "change", "GET", f"/api/v1/projects/{P}/release-risk", None, False),
    ("api", "read", "GET", f"/api/v1/projects/{P}/progress", None, False),
    ("api", "read", "GET", f"/api/v1/projects/{P}/conflicts", None, False),
]  # fmt: skip


@pytest.fixture
def world(app):
    """mia's paper project double-coded by wes and wen, pair 4 disputed; ola manages another
    project, ada is an admin, wil a worker with no assignment yet."""
    with app.app_context():
        mia, ola = make_user("mia", "manager"), make_user("ola", "manager")
        ada, wes, wen = make_user("ada", "admin"), make_user("wes"), make_user("wen")
        make_user("wil")
        project = paper_project(mia)
        a, b = make_assignment(project, wes, 0.5), make_assignment(project, wen, 0.5)
        decide(a, 4, "same"), decide(b, 4, "different")
        db.session.commit()
        paper_project(ola, name="Ola's")
        tokens = {u.username: make_token(u) for u in (mia, ola, ada, wes)}
        return {"project": project.id, "assignment": a.id, "tokens": tokens}


def state(project_id: int) -> tuple:
    """What the change routes can change: assignments and budgets, policy, settings."""
    project = db.session.get(Project, project_id)
    rows = db.session.execute(
        select(Assignment.worker_id, Assignment.budget).where(Assignment.project_id == project_id)
    ).all()
    resolutions = db.session.scalar(select(func.count()).select_from(ConflictResolution))
    return (
        sorted((w, round(b, 9)) for w, b in rows),
        project.conflict_policy,
        project.resolver_budget,
        project.show_scores,
        resolutions,
    )


def outcome(response) -> str:
    if response.status_code == 401 or (
        response.status_code == 302 and "/login" in response.headers["Location"]
    ):
        return "login"
    if response.status_code == 403:
        return "refused"
    assert response.status_code in (200, 201, 302), response.status_code
    return "allowed"


def send(client, world, surface, role, method, path, body):
    url = path.format(**world)
    if surface == "api":
        headers = {}
        if role != "anonymous":
            headers["Authorization"] = f"Bearer {world['tokens'][USERS[role]]}"
        return client.open(url, method=method, json=body, headers=headers)
    if role != "anonymous":
        login = client.post("/login", data={"username": USERS[role], "password": PASSWORD})
        assert login.status_code == 302
    return client.open(url, method=method, data=body)


@pytest.mark.parametrize(
    ("surface", "level", "method", "path", "body", "mutates"),
    ROUTES,
    ids=[f"{r[0]}-{r[2]}-{r[3].replace(P, 'p').replace(A, 'a')}" for r in ROUTES],
)
def test_one_owner_rule_in_the_browser_and_the_api(
    app, world, surface, level, method, path, body, mutates
):
    """Every role in turn (the owner last: its change must be the only one)."""
    for role in ROLES[1:] + ROLES[:1]:
        with app.app_context():
            before = state(world["project"])
        response = send(app.test_client(), world, surface, role, method, path, body)
        expected = EXPECTED[level][role]
        assert outcome(response) == expected, (role, response.get_data(as_text=True)[:300])
        with app.app_context():
            after = state(world["project"])
        if expected == "allowed" and mutates:
            assert after != before, f"{role}: the change changed nothing"
        else:
            assert after == before, f"{role}: changed the project"
