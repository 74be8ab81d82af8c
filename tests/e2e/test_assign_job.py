"""A large round assigned in the browser: the manager lands on the job's page, which shows the
assignments made (the job runs inline under TESTING) and leads to the progress page."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import expect

from app.extensions import db
from app.models import Assignment, User
from tests.e2e.test_login import log_in
from tests.factories import make_user, paper_project


@pytest.fixture
def project_id(app):
    with app.app_context():
        for name, role in [("mia", "manager"), ("wes", "worker"), ("wen", "worker")]:
            make_user(name, role)
        mia = db.session.query(User).filter_by(username="mia").one()
        return paper_project(mia).id


def test_a_round_above_the_limit_goes_through_the_job_page(app, page, live_server, project_id):
    app.config["ASSIGN_JOB_PAIRS"] = 2  # the paper's round has 6 pairs
    log_in(page, live_server, "mia")
    page.wait_for_url(f"{live_server}/projects/")
    page.goto(f"{live_server}/projects/{project_id}/assignments")
    for worker in ("wes", "wen"):
        page.get_by_label(worker, exact=True).check()
    page.get_by_role("button", name="Assign").click()
    page.get_by_role("heading", name=re.compile("^Assigning pairs:")).wait_for()
    job = page.locator("#assign-job")
    expect(job).to_contain_text("Status: done")
    expect(job).to_contain_text("2 assignment(s) created in round 1")
    expect(job).to_contain_text("wen: 3 pairs")
    page.get_by_role("link", name="See the progress").click()
    page.get_by_role("heading", name="Progress:").wait_for()
    with app.app_context():
        assert db.session.query(Assignment).count() == 2
