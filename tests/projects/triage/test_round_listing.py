"""Every round is listed alike by the project page, ``GET …/rounds`` and ``flask projects
rounds``: a round of the application's blocking and one of a MINDFIRL pair file too, though
neither has a provenance row."""

from __future__ import annotations

from app.extensions import db
from app.models import Project, User
from app.projects.blocking.pairing import create_pairs
from app.projects.lifecycle import create_project
from app.projects.triage import add_scored_round
from tests.factories import make_token
from tests.projects.conftest import MINDFIRL
from tests.projects.triage.test_rounds import _scored, link_spec


def _listed(client, token: str, project_id: int) -> list[dict]:
    headers = {"Authorization": f"Bearer {token}"}
    response = client.get(f"/api/v1/projects/{project_id}/rounds", headers=headers)
    assert response.status_code == 200, response.get_json()
    return response.get_json()["rounds"]


def test_blocking_rounds_are_listed_with_the_scored_ones(app, client, runner, people):
    with app.app_context():
        owner = db.session.get(User, people["max"])
        project = create_project(link_spec(), owner)
        made = create_pairs(project, [["dob"]])  # round 1, by the application's rules
        add_scored_round(project, _scored(["a0"], ["b1"], ["A"], ["B"]), None, owner)
        db.session.commit()
        project_id, token = project.id, make_token(owner)
    rounds = _listed(client, token, project_id)
    assert [(r["round"], r["origin"]) for r in rounds] == [(1, "blocking"), (2, "scores")]
    assert rounds[0]["counts"] == {"pairs": made, "review": made} and rounds[0]["at"] is None
    listed = runner.invoke(args=["projects", "rounds", str(project_id)])
    assert listed.exit_code == 0, listed.output
    assert listed.output.splitlines() == [
        f"round 1: blocking, {made:,} pairs, {made:,} to review",
        "round 2: scores, 1 pairs, 1 to review",
    ]
    page = client.post("/login", data={"username": "max", "password": "correct horse battery"})
    assert page.status_code == 302
    home = client.get(f"/projects/{project_id}").get_data(as_text=True)
    assert 'id="rounds"' in home and "blocking" in home


def test_a_pair_file_round_is_listed(app, client, runner, people):
    made = runner.invoke(args=[
        "projects", "import", "Study", str(MINDFIRL / "ppirl.csv"), "--kind", "pairfile",
        "--owner", "max",
    ])  # fmt: skip
    assert made.exit_code == 0, made.output
    with app.app_context():
        project_id = db.session.scalar(db.select(Project.id))
        token = make_token(db.session.get(User, people["max"]))
    (only,) = _listed(client, token, project_id)
    assert (only["round"], only["origin"], only["counts"]) == (
        1, "pairfile", {"pairs": 6, "review": 6},
    )  # fmt: skip
    listed = runner.invoke(args=["projects", "rounds", str(project_id)])
    assert listed.output.strip() == "round 1: pairfile, 6 pairs, 6 to review"
