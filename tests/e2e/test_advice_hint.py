"""The advisor's hint on the worker's page in Chromium: off by default, on as a project
setting; it outlines a cell and the "enough shown" cue, and never opens a cell by itself."""

from __future__ import annotations

from playwright.sync_api import expect

from app.extensions import db
from app.models import Project, RevealEvent
from tests.api.test_advice_api import hint_project
from tests.e2e.test_login import log_in


def _open(page, base, name, assignment_id):
    log_in(page, base, f"{name}-w")
    page.wait_for_url(f"{base}/review/")
    page.goto(f"{base}/review/assignments/{assignment_id}")
    expect(page.locator("#review")).to_have_attribute("data-ready", "true")


def test_hint_off_by_default_shows_nothing_and_asks_nothing(app, live_server, page):
    _, assignment_id, _, _ = hint_project(app, "off", advice_hint=False)
    asked = []
    page.on("request", lambda r: asked.append(r.url) if "/advice" in r.url else None)
    _open(page, live_server, "off", assignment_id)
    expect(page.locator(".cell").first).to_be_visible()
    assert page.locator(".cell.suggested").count() == 0 and page.locator(".suffices").count() == 0
    assert page.locator("#advice-help").count() == 0
    assert page.locator("#review").get_attribute("data-advice") is None and asked == []


def test_hint_on_outlines_one_cell_and_opens_nothing(app, live_server, page):
    project_id, assignment_id, _, _ = hint_project(app, "on")
    posted = []
    page.on("request", lambda r: posted.append(r.url) if r.method == "POST" else None)
    _open(page, live_server, "on", assignment_id)
    expect(page.locator("#review")).to_have_attribute("data-advised", "1")
    expect(page.locator("#advice-help")).to_contain_text("only suggests")
    first, third = page.locator("tbody.pair").nth(0), page.locator("tbody.pair").nth(2)
    suggested = first.locator(".cell.suggested")
    expect(suggested).to_have_count(1)
    expect(suggested).to_have_attribute("data-attr", "first_name")
    expect(suggested).to_have_attribute("data-level", "masked")  # outlined, not opened
    assert "Suggested by the advisor" in suggested.get_attribute("title")
    expect(third.locator(".suffices")).to_have_count(1)  # identical pair: enough shown
    expect(first.locator(".suffices")).to_have_count(0)
    page.wait_for_timeout(300)  # let any stray request show itself (there must be none)
    assert not [u for u in posted if "/reveal" in u]
    with app.app_context():
        assert db.session.query(RevealEvent).count() == 0
    # The worker opens the suggested cell; the hint moves on (the partner row, or enough shown).
    suggested.click()
    expect(page.locator("#review")).to_have_attribute("data-advised", "2")
    opened = first.locator('.cell[data-attr="first_name"]:not([data-level="masked"])')
    expect(opened).to_have_count(1)
    with app.app_context():
        assert db.session.query(RevealEvent).count() == 1  # the one click, nothing else
        db.session.get(Project, project_id).advice_hint = False
        db.session.commit()
    page.reload()
    expect(page.locator("#review")).to_have_attribute("data-ready", "true")
    assert page.locator(".cell.suggested").count() == 0


def test_the_manager_turns_the_hint_on(app, live_server, page):
    project_id, _, _, _ = hint_project(app, "mgr", advice_hint=False)
    log_in(page, live_server, "mgr-m")
    page.goto(f"{live_server}/projects/{project_id}")
    form = page.locator("#advice-hint")
    form.locator('input[name="advice_hint"]').check()
    form.locator('select[name="advice_reviewer"]').select_option("evidence")
    form.locator('button[type="submit"]').click()
    expect(page.locator(".flash, .flashes, [role=status]").first).to_contain_text("advisor")
    with app.app_context():
        project = db.session.get(Project, project_id)
        assert project.advice_hint and project.advice_reviewer == "evidence"


def test_the_admins_policy_charts_draw_their_tables(app, live_server, page):
    """Administration → Disclosure policies: each chart drawn, equal to its table and CSV."""
    from tests.e2e.chart_checks import check_chart
    from tests.factories import make_user

    with app.app_context():
        make_user("ada", "admin")
    problems: list[str] = []
    page.on("pageerror", lambda e: problems.append(str(e)))
    log_in(page, live_server, "ada")
    page.goto(f"{live_server}/admin/reports/advice")
    figures = page.locator("figure.chart")
    expect(figures).to_have_count(6)
    drawn = check_chart(page, figures.nth(0))  # CHI 2018: the policies and the paper's table
    assert drawn["series"][-1].startswith("CHI 2018 participants")
    check_chart(page, figures.nth(5), download=False)
    assert problems == []
