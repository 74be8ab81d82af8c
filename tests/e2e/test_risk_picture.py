"""Managers' and admins' risk picture in a browser: progress charts, the budget recommendation
on the assignment form, risk against utility, and the admin report's collusion column."""

from __future__ import annotations

import copy

import pytest

from app.demo import PAPER_EXAMPLE
from app.extensions import db
from app.review.services import reveal_cell
from tests.e2e.chart_checks import check_chart
from tests.e2e.test_login import log_in
from tests.factories import make_assignment, make_user, paper_project
from tests.projects.conftest import decide

CLUSTERS = {"1": "a", "2": "b", "3": "c", "4": "c"}


def console_errors(page) -> list[str]:
    problems: list[str] = []
    page.on("console", lambda m: problems.append(m.text) if m.type == "error" else None)
    page.on("pageerror", lambda e: problems.append(str(e)))
    return problems


@pytest.fixture
def project_id(app):
    """The paper example with a cluster_id column; wes and wen both code every pair."""
    with app.app_context():
        make_user("ada", "admin")
        manager = make_user("max", "manager")
        spec = copy.deepcopy(PAPER_EXAMPLE)
        spec["attributes"].append({"name": "cluster_id", "type": "string", "sensitive": True})
        for record in spec["records"]:
            record["cluster_id"] = CLUSTERS[record["id"]]
        project = paper_project(manager, attributes=spec["attributes"], records=spec["records"])
        wes, wen = make_user("wes"), make_user("wen")
        a, b = make_assignment(project, wes, 0.5), make_assignment(project, wen, 0.25)
        for row in (0, 1):
            reveal_cell(a.id, 1, row, "name", by=wes)
            db.session.commit()
        reveal_cell(b.id, 2, 0, "dob", by=wen)
        db.session.commit()
        answers = [("same", "same"), ("different", "same"), ("different", "different"),
                   ("unsure", "different")]  # fmt: skip
        for pair, (x, y) in enumerate(answers, start=1):
            decide(a, pair, x)
            decide(b, pair, y)
        pid = project.id
        db.session.commit()
    return pid


def test_progress_page_charts_and_risk_utility(page, live_server, project_id):
    problems = console_errors(page)
    log_in(page, live_server, "max")
    page.goto(f"{live_server}/projects/{project_id}/progress")
    assert "Collusion KAPR" in page.locator("#collusion").inner_text()
    figures = page.locator("#progress-charts figure.chart")
    assert figures.count() == 4
    budget = check_chart(page, figures.nth(0))
    assert budget["labels"] == ["wes", "wen"] and budget["data"][1] == [50, 25]  # percent
    characters = check_chart(page, figures.nth(1))
    assert characters["labels"] == ["name", "dob", "race"]
    assert characters["data"] == [[2, 0, 0], [0, 2, 0]]  # ***y and ***k; *8/*9/****
    reveals = check_chart(page, figures.nth(2))
    assert [s[-1] for s in reveals["data"]] == [2, 1]
    agreement = check_chart(page, figures.nth(3))
    assert agreement["labels"] == ["first: same", "first: different", "first: unsure"]
    assert agreement["data"] == [[1, 1, 0], [0, 1, 1], [0, 0, 0]]  # by second coder's answer

    page.get_by_role("button", name="Score workers").click()
    page.wait_for_url(f"{live_server}/projects/{project_id}/risk-utility")
    assert "Ground truth from the column 'cluster_id'" in page.locator("#truth-source").inner_text()
    rows = page.locator("#utility tbody tr").evaluate_all(
        "rows => rows.map(r => Array.from(r.cells, c => c.innerText))"
    )
    assert [r[:5] for r in rows] == [
        ["wes", "3 / 6", "0.667", "0.000", "—"],
        ["wen", "4 / 6", "0.500", "0.000", "—"],
    ]
    scatter = page.locator("figure.chart")
    drawn = check_chart(page, scatter.nth(0))
    accuracy = drawn["data"][0]
    assert [p["label"] for p in accuracy] == ["wes", "wen"]
    assert [p["y"] for p in accuracy] == pytest.approx([2 / 3, 1 / 2])
    check_chart(page, scatter.nth(1))
    assert problems == []


def test_assignment_form_shows_the_budget_recommendation(page, live_server, project_id):
    problems = console_errors(page)
    log_in(page, live_server, "max")
    page.goto(f"{live_server}/projects/{project_id}/assignments")
    advice = page.locator("#budget-recommendation")
    kapr = advice.locator("#advice-kapr .risk")
    assert kapr.inner_text() == "6.48%" and kapr.get_attribute("data-exact") == "7/108"
    assert "exactly 7/108 of the maximum KAPR" in kapr.get_attribute("title")
    assert advice.locator("#advice-quantiles tbody td").count() == 7
    drawn = check_chart(page, advice.locator("figure.chart"), download=False)
    assert sum(drawn["data"][0]) == 6  # every pair in one bin or another
    assert problems == []


def test_admin_report_shows_max_and_collusion(page, live_server, project_id):
    problems = console_errors(page)
    log_in(page, live_server, "ada")
    page.goto(f"{live_server}/admin/reports/kapr")
    figures = page.locator("figure.chart")
    assert figures.count() == 2
    check_chart(page, figures.nth(0))
    drawn = check_chart(page, figures.nth(1))
    assert drawn["series"] == [
        "Largest assignment KAPR (%)",
        "Collusion KAPR, all assignments pooled (%)",
    ]
    cells = page.locator("#project-risk tbody tr td")
    assert cells.nth(4).inner_text() == "0.926%"  # 1/108 of the maximum, the fraction on demand
    assert cells.nth(4).locator(".risk").get_attribute("data-exact") == "1/108"
    collusion = cells.nth(6).inner_text()
    assert float(collusion.rstrip("%")) == pytest.approx(drawn["data"][1][0], rel=1e-2)
    assert problems == []
