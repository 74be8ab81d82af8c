"""One policy in browser and API: identifying exports and budget changes are the manager's.

Admins read every project's progress and the non-identifying exports; ``linked`` and
``legacy`` (record values) and budget changes belong to the owning manager (README, Security
model). And a budget is compared with the exact KAPR, not its float.
"""

from __future__ import annotations

from fractions import Fraction

import pytest

from app.extensions import db
from app.models import Assignment
from app.projects.staffing import AssignmentError, change_budget
from tests.factories import PASSWORD, make_assignment, make_token, make_user, paper_project


@pytest.fixture
def setting(app):
    with app.app_context():
        manager = make_user("mia", "manager")
        admin = make_user("ada", "admin")
        worker = make_user("wes", "worker")
        project = paper_project(manager)
        assignment = make_assignment(project, worker, 0.5)
        return {
            "project": project.id,
            "assignment": assignment.id,
            "manager": {"Authorization": f"Bearer {make_token(manager)}"},
            "admin": {"Authorization": f"Bearer {make_token(admin)}"},
        }


def _browser(app, username):
    client = app.test_client()
    client.post("/login", data={"username": username, "password": PASSWORD})
    return client


@pytest.mark.parametrize("kind", ["linked", "legacy"])
def test_identifying_exports_are_the_managers_only(app, client, setting, kind):
    api = f"/api/v1/projects/{setting['project']}/export/{kind}"
    page = f"/projects/{setting['project']}/export/{kind}"
    assert client.get(api, headers=setting["admin"]).status_code == 403
    assert _browser(app, "ada").get(page).status_code == 403
    # the manager gets it (or a 404 where the layout does not apply: legacy is pair files')
    expected = 200 if kind == "linked" else 404
    assert client.get(api, headers=setting["manager"]).status_code == expected
    assert _browser(app, "mia").get(page).status_code == expected


def test_admins_still_take_the_other_exports(app, client, setting):
    for kind in ("labels", "clusters"):
        url = f"/api/v1/projects/{setting['project']}/export/{kind}"
        assert client.get(url, headers=setting["admin"]).status_code == 200
    overview = _browser(app, "ada").get(f"/projects/{setting['project']}").get_data(as_text=True)
    assert "export/labels" in overview and "export/linked" not in overview


def test_budget_changes_are_the_managers_only(app, client, setting):
    api = f"/api/v1/projects/{setting['project']}/assignments/{setting['assignment']}/budget"
    page = f"/projects/{setting['project']}/assignments/{setting['assignment']}/budget"
    assert client.post(api, json={"budget": 0.7}, headers=setting["admin"]).status_code == 403
    assert _browser(app, "ada").post(page, data={"budget": "0.7"}).status_code == 403
    assert client.post(api, json={"budget": 0.7}, headers=setting["manager"]).status_code == 200
    _browser(app, "mia").post(page, data={"budget": "80"})  # percent of the maximum KAPR
    with app.app_context():
        assert db.session.get(Assignment, setting["assignment"]).budget == 0.8


def test_a_budget_cannot_be_the_float_just_below_the_exact_kapr(app, client, setting):
    exact = Fraction(7, 108)
    below = float(exact)
    assert Fraction(repr(below)) < exact  # the float's decimal is just below 7/108
    with app.app_context():
        assignment = db.session.get(Assignment, setting["assignment"])
        assignment.kapr_exact, assignment.kapr = str(exact), below
        db.session.commit()
        with pytest.raises(AssignmentError):
            change_budget(assignment, below, by=assignment.worker)
        db.session.rollback()
    api = f"/api/v1/projects/{setting['project']}/assignments/{setting['assignment']}/budget"
    refused = client.post(api, json={"budget": below}, headers=setting["manager"])
    assert refused.status_code == 400
    allowed = client.post(api, json={"budget": 0.0649}, headers=setting["manager"])
    assert allowed.status_code == 200
