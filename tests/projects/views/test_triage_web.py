"""The triage page, the rounds on the project page and the round buttons of the other pages,
through the test client (the Chromium walk is tests/e2e/test_triage.py)."""

from __future__ import annotations

import io

from sqlalchemy import func, select

from app.extensions import db
from app.models import Assignment, Pair, Project, Round, User
from app.projects.lifecycle import create_project
from tests.factories import PASSWORD
from tests.projects.triage.test_rounds import link_spec

CSV = (
    "source_dataset_l,unique_id_l,source_dataset_r,unique_id_r,match_probability,gamma_x\n"
    + "".join(f"dfa,a{i},dfb,b{j},{p},1\n" for i, j, p in
              [(0, 0, 0.99), (1, 1, 0.6), (2, 2, 0.97), (3, 4, 0.01), (4, 5, 0.3), (5, 5, 0.9)])
)  # fmt: skip


def _project(app, people) -> int:
    with app.app_context():
        project = create_project(link_spec(), db.session.get(User, people["max"]))
        db.session.commit()
        return project.id


def _form(**extra) -> dict:
    return {"lower": "0.1", "upper": "0.95", "calibration": "1", "seed": "3",
            "score": "probability", "order": "uncertainty", "bins": "10", **extra}  # fmt: skip


def test_preview_again_without_uploading_then_import(app, client, people):
    project = _project(app, people)
    client.post("/login", data={"username": "max", "password": PASSWORD})
    url = f"/projects/{project}/triage"
    assert client.get(url).status_code == 200
    first = client.post(url, data={**_form(), "action": "preview",
                                   "scores": (io.BytesIO(CSV.encode()), "pred.csv")},
                        content_type="multipart/form-data")  # fmt: skip
    page = first.get_data(as_text=True)
    assert first.status_code == 200 and 'id="triage-preview"' in page
    token = page.split('name="token" value="', 1)[1].split('"', 1)[0]
    assert "Import round 1: 4 pairs to review" in page  # 3 inside + 1 drawn outside
    again = client.post(url, data={**_form(upper="0.5"), "action": "preview", "token": token})
    assert "Import round 1: 2 pairs to review" in again.get_data(as_text=True)
    with app.app_context():
        assert db.session.scalar(select(func.count(Pair.id))) == 0
    data = client.get(f"{url}/histogram.csv", query_string={**_form(), "token": token})
    assert data.status_code == 200 and data.headers["Content-Type"].startswith("text/csv")
    done = client.post(url, data={**_form(), "action": "commit", "token": token})
    assert done.status_code == 302
    home = client.get(f"/projects/{project}").get_data(as_text=True)
    assert 'id="rounds"' in home and "Scored pairs" in home
    with app.app_context():
        assert db.session.scalar(select(func.count(Pair.id))) == 6
        assert db.session.scalars(select(Round)).one().filename == "pred.csv"
    # The staged file went with the commit.
    gone = client.post(url, data={**_form(), "action": "preview", "token": token})
    assert gone.status_code == 400 and "expired" in gone.get_data(as_text=True)


def test_a_bad_file_names_rows_and_nothing_is_written(app, client, people):
    project = _project(app, people)
    client.post("/login", data={"username": "max", "password": PASSWORD})
    bad = CSV.replace("a1,dfb", "SECRET,dfb")
    response = client.post(f"/projects/{project}/triage", data={
        **_form(), "action": "preview", "scores": (io.BytesIO(bad.encode()), "p.csv")},
        content_type="multipart/form-data")  # fmt: skip
    text = response.get_data(as_text=True)
    assert response.status_code == 400 and "row 2, column &#39;unique_id_l&#39;" in text
    assert "SECRET" not in text


def test_a_new_project_upload_token_is_not_a_triage_token(app, client, people):
    """Each step reads only its own staged files."""
    project = _project(app, people)
    client.post("/login", data={"username": "max", "password": PASSWORD})
    first = client.post(f"/projects/{project}/triage", data={
        **_form(), "action": "preview", "scores": (io.BytesIO(CSV.encode()), "p.csv")},
        content_type="multipart/form-data")  # fmt: skip
    token = first.get_data(as_text=True).split('name="token" value="', 1)[1].split('"', 1)[0]
    assert client.get(f"/projects/new/{token}/map").status_code == 404


def test_blocking_page_adds_rounds_and_reblocks_after_assignments(app, client, people):
    with app.app_context():
        project = create_project(link_spec([["a0", "b0"]]), db.session.get(User, people["max"]))
        db.session.commit()
        project_id = project.id
    client.post("/login", data={"username": "max", "password": PASSWORD})
    form = {"rule-0-attr-0": "dob", "rule-0-transform-0": "exact"}
    preview = client.post(f"/projects/{project_id}/blocking", data={**form, "action": "preview"})
    page = preview.get_data(as_text=True)
    assert "Add the new pairs as round 2" in page and "Replace the pairs" in page
    wes = {"worker-wes": "on", "budget-wes": "0.5", "coding": "single"}
    assign = client.post(f"/projects/{project_id}/assignments", data=wes)
    assert assign.status_code == 302
    preview = client.post(f"/projects/{project_id}/blocking", data={**form, "action": "preview"})
    assert "Replace the pairs" not in preview.get_data(as_text=True)  # workers have pairs
    made = client.post(f"/projects/{project_id}/blocking", data={**form, "action": "reblock"})
    assert made.status_code == 302
    again = client.post(f"/projects/{project_id}/assignments", data={**wes, "round": "2"})
    assert again.status_code == 302
    with app.app_context():
        rounds = sorted(db.session.scalars(select(Assignment.round)))
        assert rounds == [1, 2]
        assert db.session.scalar(select(func.count(Pair.id)).where(Pair.round == 2)) == 5


def test_show_scores_is_the_managers_switch(app, client, people):
    project = _project(app, people)
    client.post("/login", data={"username": "max", "password": PASSWORD})
    client.post(f"/projects/{project}/show-scores", data={"show_scores": "on"})
    with app.app_context():
        assert db.session.get(Project, project).show_scores
    client.post(f"/projects/{project}/show-scores", data={})
    client.post("/logout")
    client.post("/login", data={"username": "wes", "password": PASSWORD})
    assert (
        client.post(f"/projects/{project}/show-scores", data={"show_scores": "on"}).status_code
        == 403
    )
