"""Later rounds under other source names: the application's own predictions (``A``/``B``) and
another linker's file after a first round from Splink outside, by the API, the command line
and the page; the first round's names stay the ones the exports write back."""

from __future__ import annotations

import io

import pytest
from sqlalchemy import select

from app.extensions import db
from app.models import Pair, Source, User
from app.projects.lifecycle import create_project
from app.projects.triage import ScoredPairsError, add_scored_round
from tests.factories import PASSWORD, make_token
from tests.projects.triage.test_rounds import _scored, link_spec

HEADER = "source_dataset_l,unique_id_l,source_dataset_r,unique_id_r,match_probability\n"


def _csv(left: str, right: str, *pairs: tuple[int, int]) -> bytes:
    return (HEADER + "".join(f"{left},a{i},{right},b{j},0.5\n" for i, j in pairs)).encode()


@pytest.fixture
def project(app, people):
    """A link project whose first round came from Splink outside (names febrl4a/febrl4b)."""
    with app.app_context():
        owner = db.session.get(User, people["max"])
        project = create_project(link_spec(), owner)
        add_scored_round(project, _scored(["a0"], ["b0"], ["febrl4a"], ["febrl4b"]), None, owner)
        db.session.commit()
        return project.id, make_token(owner)


def _pairs(app, project_id: int) -> set[tuple[str, str]]:
    with app.app_context():
        pairs = db.session.scalars(select(Pair).where(Pair.project_id == project_id)).all()
        return {(p.record_a.external_id, p.record_b.external_id) for p in pairs}


def test_the_api_takes_the_apps_own_predictions_and_other_names_as_later_rounds(
    app, client, project
):
    project_id, token = project
    url = f"/api/v1/projects/{project_id}/predictions"
    headers = {"Authorization": f"Bearer {token}", "Content-Type": "text/csv"}
    own = client.post(url, data=_csv("A", "B", (1, 1)), headers=headers)
    assert own.status_code == 201, own.json
    # Another linker, its sources named its own way: found by the record ids.
    other = client.post(url, data=_csv("dfa", "dfb", (2, 2)), headers=headers)
    assert other.status_code == 201, other.json
    # Names given for this file win, even over the kept ones; names that are not its own fail.
    named = client.post(f"{url}?source_a=left&source_b=right",
                        data=_csv("left", "right", (3, 3)), headers=headers)  # fmt: skip
    assert named.status_code == 201, named.json
    wrong = client.post(f"{url}?source_a=febrl4a&source_b=febrl4b",
                        data=_csv("A", "B", (4, 4)), headers=headers)  # fmt: skip
    assert wrong.status_code == 400 and "are not the file's" in wrong.get_data(as_text=True)
    assert [r["round"] for r in (own.json, other.json, named.json)] == [2, 3, 4]
    assert _pairs(app, project_id) == {(f"a{i}", f"b{i}") for i in range(4)}
    with app.app_context():
        kept = dict(db.session.execute(select(Source.label, Source.dataset)).all())
    assert kept == {"A": "febrl4a", "B": "febrl4b"}  # what the exports write back


def test_the_command_line_takes_the_apps_own_predictions_as_a_later_round(
    app, runner, project, tmp_path
):
    project_id, _ = project
    path = tmp_path / "model_1.csv"
    path.write_bytes(_csv("A", "B", (1, 1), (2, 3)))
    made = runner.invoke(args=["projects", "triage", str(project_id), str(path), "--json"])
    assert made.exit_code == 0, made.output
    assert _pairs(app, project_id) == {("a0", "b0"), ("a1", "b1"), ("a2", "b3")}


def test_the_page_takes_the_apps_own_predictions_as_a_later_round(app, client, project):
    project_id, _ = project
    client.post("/login", data={"username": "max", "password": PASSWORD})
    url = f"/projects/{project_id}/triage"
    page = client.get(url).get_data(as_text=True)
    assert 'placeholder="febrl4a"' in page and 'value="febrl4a"' not in page  # not sent back
    form = {"lower": "0.1", "upper": "0.9", "calibration": "0", "seed": "1",
            "score": "probability", "order": "uncertainty", "bins": "10"}  # fmt: skip
    preview = client.post(
        url, data={**form, "action": "preview", "source_a": "", "source_b": "",
                   "scores": (io.BytesIO(_csv("A", "B", (5, 5))), "model_1.csv")},
        content_type="multipart/form-data",
    )  # fmt: skip
    text = preview.get_data(as_text=True)
    assert preview.status_code == 200, text
    token = text.split('name="token" value="', 1)[1].split('"', 1)[0]
    done = client.post(url, data={**form, "action": "commit", "token": token})
    assert done.status_code == 302
    assert ("a5", "b5") in _pairs(app, project_id)


def test_unknown_names_with_unknown_ids_are_refused_saying_so(app, project):
    project_id, _ = project
    with app.app_context():
        from app.models import Project

        p = db.session.get(Project, project_id)
        with pytest.raises(ScoredPairsError, match="none of its record ids"):
            add_scored_round(p, _scored(["x"], ["y"], ["dfa"], ["dfb"]), None, p.owner)
