"""Assigning a large round from the browser runs as a job (inline under TESTING): the manager
is sent to its page, which shows what was made; a small round is still assigned at once, and
both make the same assignments."""

from __future__ import annotations

import pytest
from sqlalchemy import select

from app.extensions import db
from app.models import Assignment, AssignmentPair, Job, Pair, User
from app.projects.lifecycle import create_project
from tests.factories import PASSWORD, make_user
from tests.projects.staffing.test_bulk_assignments import PAIRS, RECORDS

ATTRIBUTES = [{"name": "num", "type": "id"}, {"name": "first", "type": "string"},
              {"name": "last", "type": "string"}, {"name": "dob", "type": "date"},
              {"name": "sex", "type": "category"}]  # fmt: skip
FORM = {"worker-wes": "on", "budget-wes": "50", "worker-wen": "on", "budget-wen": "30",
        "coding": "single", "page_size": "4"}  # fmt: skip


@pytest.fixture
def project_id(app):
    with app.app_context():
        owner = make_user("max", "manager")
        make_user("wes"), make_user("wen"), make_user("other", "manager")
        spec = {"name": "job", "kind": "dedupe", "records": RECORDS, "pairs": PAIRS,
                "attributes": ATTRIBUTES}  # fmt: skip
        project = create_project(spec, owner)
        db.session.commit()
        return project.id


def _login(client, name="max"):
    client.post("/login", data={"username": name, "password": PASSWORD})
    return client


def _made(app) -> dict[str, tuple[list[int], int, float]]:
    with app.app_context():
        made = {}
        for a in db.session.scalars(select(Assignment)):
            query = select(AssignmentPair.pair_id).where(AssignmentPair.assignment_id == a.id)
            made[a.worker.username] = (sorted(db.session.scalars(query)), a.chars_total, a.budget)
        return made


def test_a_round_above_the_limit_is_assigned_by_a_job_with_a_page(app, client, project_id):
    app.config["ASSIGN_JOB_PAIRS"] = 3  # the round has 7 pairs
    manager = _login(client)
    base = f"/projects/{project_id}"
    response = manager.post(f"{base}/assignments", data=FORM)
    assert response.status_code == 302 and "/assignments/jobs/" in response.location
    page = manager.get(response.location)
    text = page.get_data(as_text=True)
    assert page.status_code == 200 and "Status: done" in text
    assert "2 assignment(s) created in round 1" in text and "wen: 4 pairs" in text
    assert "wes: 3 pairs" in text and "refreshes" not in text  # workers in name order
    with app.app_context():
        job = db.session.scalars(select(Job)).one()
        assert job.kind == "assign" and job.result["project_id"] == project_id
        assert (job.progress_done, job.progress_total) == (1, 2)  # pairs read; then written
        pairs = db.session.scalars(select(Pair.id).order_by(Pair.id)).all()
        assert db.session.get(Assignment, 1).project.page_size == 4
    made = _made(app)
    assert made["wen"][0] == pairs[0::2] and made["wes"][0] == pairs[1::2]
    assert (made["wes"][2], made["wen"][2]) == (0.5, 0.3)
    # nobody else reads the job, under this project or another
    other = app.test_client()
    _login(other, "other")
    assert other.get(response.location).status_code in (403, 404)
    assert manager.get(f"{base}/assignments/jobs/999").status_code == 404


def test_the_job_and_the_request_make_the_same_assignments(app, client, project_id):
    manager = _login(client)
    assert manager.post(f"/projects/{project_id}/assignments", data=FORM).status_code == 302
    at_once = _made(app)
    with app.app_context():
        assert db.session.scalar(select(Job.id)) is None  # small: no job
        for a in db.session.scalars(select(Assignment)):
            db.session.delete(a)
        db.session.commit()
    app.config["ASSIGN_JOB_PAIRS"] = 0
    response = manager.post(f"/projects/{project_id}/assignments", data=FORM)
    assert "/assignments/jobs/" in response.location
    assert _made(app) == at_once


def test_a_wrong_form_is_answered_at_once_and_a_refusal_in_the_job_is_shown(
    app, client, project_id
):
    app.config["ASSIGN_JOB_PAIRS"] = 0
    manager = _login(client)
    base = f"/projects/{project_id}"
    assert manager.post(f"{base}/assignments", data=FORM).status_code == 302
    again = manager.post(f"{base}/assignments", data=FORM)  # wes holds this round already
    assert again.status_code == 400 and b"has an assignment in this project already" in again.data
    with app.app_context():
        assert db.session.scalar(select(db.func.count(Job.id))) == 1
        for a in db.session.scalars(select(Assignment)):
            db.session.delete(a)
        db.session.commit()
    # Refused by the job itself: opening every attribute at partial costs more than 0 %.
    form = FORM | {"budget-wes": "0", "budget-wen": "0", "start_partial": ["first", "last"]}
    response = manager.post(f"{base}/assignments", data=form)
    text = manager.get(response.location).get_data(as_text=True)
    assert "Nothing was assigned: opening" in text and "over the budget" in text
    assert _made(app) == {}


def test_a_running_job_shows_its_step_and_refreshes(app, client, project_id):
    with app.app_context():
        owner = db.session.scalar(select(User.id).where(User.username == "max"))
        job = Job(kind="assign", status="running", progress_done=1, progress_total=2)
        job.created_by = owner
        db.session.add(job)
        db.session.commit()
        job_id = job.id
    page = _login(client).get(f"/projects/{project_id}/assignments/jobs/{job_id}")
    text = page.get_data(as_text=True)
    assert 'http-equiv="refresh"' in text and "step 2 of 2:" in text
    assert "writing the assignments" in text
