"""A large scored-pairs file is imported by a job with a progress page; what it stores is what
the request stores for a small file. A file that does not fit comes back with its problems."""

from __future__ import annotations

import io

import pytest
from sqlalchemy import func, select
from sqlalchemy.orm import aliased

from app.extensions import db
from app.models import Job, Pair, Record
from tests.factories import PASSWORD
from tests.projects.views.test_triage_web import CSV, _form, _project


def _import(client, project: int, body: str, action: str = "commit"):
    url = f"/projects/{project}/triage"
    return client.post(url, data={**_form(), "action": action,
                                  "scores": (io.BytesIO(body.encode()), "pred.csv")},
                       content_type="multipart/form-data")  # fmt: skip


def _stored(project: int) -> list[tuple]:
    """The project's pairs in id order, by the records' own ids."""
    a, b = aliased(Record), aliased(Record)
    query = (
        select(a.external_id, b.external_id, Pair.match_probability, Pair.match_weight,
               Pair.purpose, Pair.model_decision, Pair.rule, Pair.round)
        .join(a, a.id == Pair.record_a_id)
        .join(b, b.id == Pair.record_b_id)
        .where(Pair.project_id == project)
        .order_by(Pair.id)
    )  # fmt: skip
    return [tuple(row) for row in db.session.execute(query)]


def test_a_large_file_is_imported_by_a_job_as_the_request_would(app, client, people):
    in_request, by_job = _project(app, people), _project(app, people)
    client.post("/login", data={"username": "max", "password": PASSWORD})
    assert _import(client, in_request, CSV).status_code == 302
    app.config["TRIAGE_JOB_THRESHOLD"] = 3  # the file has 6 pairs
    queued = _import(client, by_job, CSV)
    assert queued.status_code == 302 and "/triage/jobs/" in queued.headers["Location"]
    page = client.get(queued.headers["Location"]).get_data(as_text=True)
    assert 'id="triage-job"' in page and "Status: done" in page
    assert "Round 1: 4 pairs to review (1 for calibration)" in page
    with app.app_context():
        assert _stored(by_job) == _stored(in_request) and len(_stored(by_job)) == 6
        job = db.session.scalars(select(Job).where(Job.kind == "triage")).one()
        assert job.result["round"] == 1 and job.result["counts"]["review"] == 4
    # another project's page does not show this job
    other = queued.headers["Location"].replace(f"/projects/{by_job}/", f"/projects/{in_request}/")
    assert client.get(other).status_code == 404


@pytest.mark.parametrize("action", ["commit", "preview"])
def test_a_large_file_that_does_not_fit_shows_its_problems(app, client, people, action):
    project = _project(app, people)
    client.post("/login", data={"username": "max", "password": PASSWORD})
    app.config["TRIAGE_JOB_THRESHOLD"] = 3
    queued = _import(client, project, CSV.replace("a1,dfb", "SECRET,dfb"), action)
    page = client.get(queued.headers["Location"]).get_data(as_text=True)
    doing = "Previewing" if action == "preview" else "Importing"
    assert f"{doing} scored pairs" in page
    assert "row 2, column &#39;unique_id_l&#39;" in page and "SECRET" not in page
    with app.app_context():
        assert db.session.scalar(select(func.count(Pair.id))) == 0


def test_settings_are_checked_before_a_job_is_queued(app, client, people):
    project = _project(app, people)
    client.post("/login", data={"username": "max", "password": PASSWORD})
    app.config["TRIAGE_JOB_THRESHOLD"] = 3
    response = client.post(f"/projects/{project}/triage", data={
        **_form(lower="0.9", upper="0.1"), "action": "commit",
        "scores": (io.BytesIO(CSV.encode()), "pred.csv")},
        content_type="multipart/form-data")  # fmt: skip
    assert response.status_code == 400 and "must not be above" in response.get_data(as_text=True)
    with app.app_context():
        assert db.session.scalar(select(func.count(Job.id))) == 0


def test_progress_while_the_pairs_are_written_leaves_the_round_whole(
    app, client, people, monkeypatch
):
    """Chunk by chunk progress (PostgreSQL: its own connection; SQLite: none) neither blocks
    the job nor changes what it stores."""
    from app.projects.triage import job, store

    monkeypatch.setattr(store, "CHUNK", 2)
    monkeypatch.setattr(job, "PROGRESS_SECONDS", -1.0)
    in_request, by_job = _project(app, people), _project(app, people)
    client.post("/login", data={"username": "max", "password": PASSWORD})
    assert _import(client, in_request, CSV).status_code == 302
    app.config["TRIAGE_JOB_THRESHOLD"] = 3
    queued = _import(client, by_job, CSV)
    assert "Status: done" in client.get(queued.headers["Location"]).get_data(as_text=True)
    with app.app_context():
        assert _stored(by_job) == _stored(in_request)


def test_a_large_file_is_previewed_by_a_job_as_the_request_would(app, client, people):
    project, other = _project(app, people), _project(app, people)
    client.post("/login", data={"username": "max", "password": PASSWORD})
    url = f"/projects/{project}/triage"
    upload = {"scores": (io.BytesIO(CSV.encode()), "pred.csv")}
    small = client.post(url, data={**_form(), "action": "preview", **upload},
                        content_type="multipart/form-data")  # fmt: skip
    token = small.get_data(as_text=True).split('name="token" value="', 1)[1].split('"', 1)[0]
    in_request = client.get(f"{url}/histogram.csv", query_string={**_form(), "token": token})
    app.config["TRIAGE_JOB_THRESHOLD"] = 3  # the file has 6 pairs
    queued = client.post(url, data={**_form(), "action": "preview", "token": token})
    assert queued.status_code == 302 and "/triage/jobs/" in queued.headers["Location"]
    done = client.get(queued.headers["Location"])  # the job ran inline: back to the triage page
    assert done.status_code == 302 and "?job=" in done.headers["Location"]
    page = client.get(done.headers["Location"]).get_data(as_text=True)
    assert 'id="triage-preview"' in page and "Import round 1: 4 pairs to review" in page
    assert f'name="token" value="{token}"' in page and 'name="calibration" value="1"' in page
    job = done.headers["Location"].rsplit("=", 1)[1]
    by_job = client.get(f"{url}/histogram.csv", query_string={"job": job})
    assert by_job.status_code == 200 and by_job.data == in_request.data
    # new thresholds, the same staged file: another preview job
    again = client.post(url, data={**_form(upper="0.5"), "action": "preview", "token": token})
    page = client.get(client.get(again.headers["Location"]).headers["Location"])
    assert "Import round 1: 2 pairs to review" in page.get_data(as_text=True)
    with app.app_context():
        assert db.session.scalar(select(func.count(Pair.id))) == 0  # a preview writes nothing
        assert (
            db.session.scalar(select(func.count(Job.id)).where(Job.kind == "triage_preview")) == 2
        )
    # the preview is this project's and this manager's only
    assert client.get(f"/projects/{other}/triage", query_string={"job": job}).status_code == 404
    assert client.get(f"/projects/{project}/triage", query_string={"job": 999}).status_code == 404
    committed = client.post(url, data={**_form(), "action": "commit", "token": token})
    assert "Status: done" in client.get(committed.headers["Location"]).get_data(as_text=True)
    with app.app_context():
        assert db.session.scalar(select(func.count(Pair.id))) == 6
