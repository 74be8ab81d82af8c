"""Projects listed with counts and progress (page and API); admins read others' projects only."""

from __future__ import annotations

import pytest

from app.extensions import db
from app.models import Project
from app.projects.conflicts import resolve_conflict
from tests.factories import PASSWORD, make_assignment, make_token, make_user, paper_project
from tests.projects.conftest import decide


@pytest.fixture
def world(app):
    """mia's paper project double-coded by wes and wen: pairs 1-3 agreed, 4 disputed, 5 answered
    by wes only (one answer of two settles nothing: neither settled nor answered by all),
    6 untouched. ola has a project of her own."""
    with app.app_context():
        mia, ola = make_user("mia", "manager"), make_user("ola", "manager")
        ada, wes, wen = make_user("ada", "admin"), make_user("wes"), make_user("wen")
        project = paper_project(mia)
        a, b = make_assignment(project, wes, 0.5), make_assignment(project, wen, 0.5)
        for pair in (1, 2, 3):
            decide(a, pair, "same"), decide(b, pair, "same")
        decide(a, 4, "same"), decide(b, 4, "different"), decide(a, 5, "different")
        db.session.commit()
        other = paper_project(ola, name="Ola's")
        tokens = {u.username: make_token(u) for u in (mia, ola, ada, wes)}
        return {"project": project.id, "other": other.id, "tokens": tokens}


def listed(client, world, who):
    headers = {"Authorization": f"Bearer {world['tokens'][who]}"}
    return client.get("/api/v1/projects", headers=headers)


def test_the_api_lists_a_managers_projects_with_counts(app, client, world):
    (mine,) = listed(client, world, "mia").get_json()["projects"]
    assert (mine["id"], mine["owner"], mine["kind"]) == (world["project"], "mia", "dedupe")
    assert mine["counts"] == {
        "records": 4, "pairs": 6, "assignments": 2, "answered": 4, "settled": 3, "conflicts": 1,
    }  # fmt: skip
    assert mine["progress"] == {"answered_percent": 66.67, "settled_percent": 50.0}
    assert [p["id"] for p in listed(client, world, "ola").get_json()["projects"]] == [
        world["other"]
    ]
    every = listed(client, world, "ada").get_json()["projects"]
    assert {p["id"] for p in every} == {world["project"], world["other"]}
    assert listed(client, world, "wes").status_code == 403

    with app.app_context():
        project = db.session.get(Project, world["project"])
        resolve_conflict(project, 4, "same", "low", by=project.owner)
        db.session.commit()
    (mine,) = listed(client, world, "mia").get_json()["projects"]
    assert (mine["counts"]["settled"], mine["counts"]["conflicts"]) == (4, 0)


def test_progress_json_says_answered_apart_from_settled(client, world):
    headers = {"Authorization": f"Bearer {world['tokens']['mia']}"}
    body = client.get(f"/api/v1/projects/{world['project']}/progress", headers=headers).get_json()
    assert (body["answered"], body["settled"], body["decided"]) == (4, 3, 3)
    assert (body["answers"], body["answers_due"], body["assigned"]) == (9, 12, 6)


def browser(app, who):
    client = app.test_client()
    client.post("/login", data={"username": who, "password": PASSWORD})
    return client


def test_the_list_page_shows_counts_and_progress(app, world):
    page = browser(app, "mia").get("/projects/").get_data(as_text=True)
    row = page.split(f'id="project-{world["project"]}"')[1].split("</tr>")[0]
    cells = [c.split(">", 1)[1].split("<")[0] for c in row.split("<td")[1:]]
    assert cells[1:7] == ["dedupe", "4", "6", "2", "4", "3"]
    assert 'value="3"' in row and "50%" in row
    assert "Ola" not in page


def test_admins_have_a_projects_link_and_read_only_pages(app, world):
    admin = browser(app, "ada")
    assert 'href="/projects/">Projects</a>' in admin.get("/admin/").get_data(as_text=True)
    listing = admin.get("/projects/").get_data(as_text=True)
    assert "Ola&#39;s" in listing and '<th scope="col">Manager</th>' in listing
    base = f"/projects/{world['project']}"
    overview = admin.get(base).get_data(as_text=True)
    assert 'id="read-only"' in overview and "/blocking" not in overview
    assert "/delete" not in overview
    assert (
        "Assign"
        not in admin.get(f"{base}/assignments").get_data(as_text=True).split("</section>")[-1]
    )
    progress = admin.get(f"{base}/progress").get_data(as_text=True)
    assert "the manager's" in progress and 'name="budget"' not in progress
    conflicts = admin.get(f"{base}/conflicts").get_data(as_text=True)
    assert 'id="bulk"' not in conflicts and "Resolve pair" not in conflicts
    assert "Pair 4" in conflicts  # read, not changed
    for path, data in [
        (f"{base}/blocking", {"action": "preview", "rule-0-attr-0": "name"}),
        (f"{base}/assignments", {"worker-wes": "on", "budget-wes": "10"}),
        (f"{base}/conflicts/4/resolve", {"decision": "same"}),
        (f"{base}/conflicts/bulk", {"pair": "4", "decision": "same"}),
        (f"{base}/delete", {"confirm_name": "x"}),
    ]:
        assert admin.post(path, data=data).status_code == 403, path
    owner = browser(app, "mia")
    assert 'id="read-only"' not in owner.get(base).get_data(as_text=True)
    assert owner.post(f"{base}/conflicts/4/resolve", data={"decision": "same"}).status_code == 302
