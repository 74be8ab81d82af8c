"""One unit in the browser (percent of the maximum KAPR, exact on demand; budgets typed in
percent), the budget recommendation as a page, counts that say what they mean, and the
projects list with counts for managers and admins (read-only where not theirs)."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import expect

from app.extensions import db
from app.models import Assignment
from tests.e2e.test_login import log_in
from tests.factories import make_user, paper_project
from tests.projects.conftest import decide


@pytest.fixture
def project_id(app):
    with app.app_context():
        for name, role in [
            ("mia", "manager"),
            ("ada", "admin"),
            ("wes", "worker"),
            ("wen", "worker"),
        ]:
            make_user(name, role)
        from app.models import User

        mia = db.session.query(User).filter_by(username="mia").one()
        return paper_project(mia).id


def test_budgets_in_percent_recommendation_page_and_counts(app, page, live_server, project_id):
    log_in(page, live_server, "mia")
    page.wait_for_url(f"{live_server}/projects/")
    page.get_by_role("link", name=re.compile("^Paper example")).click()
    page.get_by_role("link", name="Budget recommendation").click()
    advice = page.locator("#advice-kapr .risk")
    expect(advice).to_have_text("6.48%")
    expect(advice).to_have_attribute("title", re.compile("^exactly 7/108 of the maximum KAPR"))
    expect(page.locator("#advice-quantiles tbody .risk")).to_have_count(7)
    assert "{" not in page.locator("main").inner_text()  # a page, not raw JSON

    page.goto(f"{live_server}/projects/{project_id}/assignments")
    expect(page.get_by_label("Budget for wes")).to_have_value("50")  # the default, in percent
    for worker, budget in [("wes", "0.5"), ("wen", "25")]:
        page.get_by_label(worker, exact=True).check()
        page.get_by_label(f"Budget for {worker}").fill(budget)
    page.get_by_label("Double: each pair to two workers").check()
    page.get_by_role("button", name="Assign").click()
    page.get_by_role("heading", name="Progress:").wait_for()
    wes = page.locator("#workers tbody tr", has_text="wes")
    budget = wes.locator("td:nth-child(3) > .risk").nth(1)  # spent / budget
    expect(budget).to_have_text("0.500%")
    expect(budget).to_have_attribute("title", "exactly 1/200 of the maximum KAPR (0.005)")
    expect(page.locator("#workers tbody tr", has_text="wen")).to_contain_text("0.00% / 25.00%")
    with app.app_context():
        assert sorted(a.budget for a in db.session.query(Assignment)) == [0.005, 0.25]

    page.get_by_label("New budget for wes (% of the maximum KAPR)").fill("1.5")
    wes.get_by_role("button", name="Set").click()
    expect(page.locator(".flash-info")).to_have_text(
        "Budget of wes set to 1.50% of the maximum KAPR."
    )
    expect(budget).to_have_text("1.50%")

    with app.app_context():
        a, b = db.session.query(Assignment).order_by(Assignment.id).all()
        for pair in (1, 2):
            decide(a, pair, "same"), decide(b, pair, "same")
        decide(a, 3, "same"), decide(b, 3, "different")
        db.session.commit()
    page.reload()
    expect(page.locator("#count-answered")).to_contain_text("Answered: 3 of 6 assigned pairs")
    expect(page.locator("#count-answered")).to_contain_text("6 of 12 answers given")
    expect(page.locator("#count-settled")).to_contain_text("Settled: 2 of 6 pairs")
    expect(page.locator("#count-conflicts")).to_contain_text("Open conflicts: 1")

    page.goto(f"{live_server}/projects/")
    row = page.locator(f"#project-{project_id} td")
    expect(row.nth(1)).to_have_text("dedupe")
    assert row.all_inner_texts()[2:8] == ["4", "6", "2", "3", "2", "1"]
    expect(row.nth(8)).to_contain_text("33%")


def test_admins_read_projects_through_their_projects_link(page, live_server, project_id):
    log_in(page, live_server, "ada")
    page.wait_for_url(f"{live_server}/admin/")
    page.get_by_role("navigation", name="Administration").get_by_role(
        "link", name="Projects"
    ).click()
    expect(page.locator("#projects thead")).to_contain_text("Manager")
    expect(page.locator(f"#project-{project_id}")).to_contain_text("mia")
    page.get_by_role("link", name=re.compile("^Paper example")).click()
    expect(page.locator("#read-only")).to_contain_text("belongs to mia")
    expect(page.get_by_role("link", name="Blocking")).to_have_count(0)
    expect(page.get_by_role("link", name="Delete…")).to_have_count(0)
    page.get_by_role("link", name="Assignments").click()
    expect(page.get_by_role("button", name="Assign")).to_have_count(0)
    expect(page.locator("#advice-kapr")).to_contain_text("6.48%")
