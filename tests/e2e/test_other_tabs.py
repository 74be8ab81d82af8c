"""One worker, two tabs of the same assignment: each follows the server.

A refusal updates the refused tab's meters from the server's answer; a cell revealed in the
other tab is not charged again at a price this tab never showed; an answer changed in the
other tab is reported, not silently overwritten; a tab back in view reads the server again.
"""

from __future__ import annotations

from fractions import Fraction

import pytest
from playwright.sync_api import expect

from tests.e2e.test_login import log_in
from tests.e2e.test_review_page import (
    cell,
    exhaust_budget_elsewhere,
    kapr_exact,
    percent,
    server_state,
    stale_cell,
)
from tests.factories import make_assignment, make_user, paper_project


@pytest.fixture
def assignment_id(app):
    with app.app_context():
        project = paper_project(make_user("max", "manager"))
        return make_assignment(project, make_user("wes"), budget=0.05).id


@pytest.fixture
def tabs(browser, live_server, assignment_id):
    context = browser.new_context()
    first = context.new_page()
    first.set_default_timeout(10_000)
    log_in(first, live_server, "wes")
    first.wait_for_url(f"{live_server}/review/")
    second = context.new_page()  # the same session: a second tab
    second.set_default_timeout(10_000)
    for tab in (first, second):
        tab.goto(f"{live_server}/review/assignments/{assignment_id}")
        expect(tab.locator("#review")).to_have_attribute("data-ready", "true")
    yield first, second
    context.close()


def test_a_refused_tab_takes_the_servers_meters(tabs, live_server, assignment_id):
    first, second = tabs
    api = f"{live_server}/api/v1/assignments/{assignment_id}"
    assert first.locator("#kapr-value").inner_text() == "0.00%"
    stale_key, spent = exhaust_budget_elsewhere(second, api)
    stale = stale_cell(first, stale_key)
    stale.click()  # still offered here: the server refuses it for budget
    expect(first.locator("#alert")).to_contain_text("Nothing was revealed")
    expect(first.locator("#kapr-value")).to_have_text(percent(spent))  # not 0.00% any more
    assert kapr_exact(first) == spent
    title = first.locator("#kapr-value").get_attribute("title")
    assert title == f"exactly {spent} of the maximum KAPR"
    expect(first.locator(".cell.open")).to_have_count(0)  # nothing is offered that cannot be paid
    assert Fraction(server_state(first, api)["assignment"]["kapr_exact"]) == spent


def test_a_cell_revealed_in_the_other_tab_is_not_charged_again(tabs, live_server, assignment_id):
    first, second = tabs
    api = f"{live_server}/api/v1/assignments/{assignment_id}"
    cell(second, 0, 0, "name").click()
    expect(cell(second, 0, 0, "name").locator(".value")).to_have_text("***y")
    spent = kapr_exact(second)
    assert spent > 0
    cell(first, 0, 0, "name").click()  # shown masked here: partial on the server
    expect(first.locator("#alert")).to_contain_text("revealed in another tab")
    expect(cell(first, 0, 0, "name").locator(".value")).to_have_text("***y")
    expect(first.locator("#kapr-value")).to_have_text(percent(spent))
    assert Fraction(server_state(first, api)["assignment"]["kapr_exact"]) == spent


def test_an_answer_changed_in_the_other_tab_is_reported(tabs):
    first, second = tabs
    pair = "tbody.pair >> nth=0"
    second.locator(pair).get_by_role("button", name="same, high confidence").click()
    expect(second.locator("#progress-text")).to_have_text("1 / 6")
    first.locator(pair).get_by_role("button", name="different, low confidence").click()
    expect(first.locator("#alert")).to_contain_text("changed in another tab or window")
    expect(first.locator("#alert")).to_contain_text("it is now: same, high confidence")
    same = first.locator(pair).get_by_role("button", name="same, high confidence")
    expect(same).to_have_attribute("aria-pressed", "true")  # the server's answer, shown
    first.locator(pair).get_by_role("button", name="different, low confidence").click()
    expect(first.locator("#status")).to_contain_text("different, low confidence saved")
    second.reload()
    expect(second.locator("#review")).to_have_attribute("data-ready", "true")
    different = second.locator(pair).get_by_role("button", name="different, low confidence")
    expect(different).to_have_attribute("aria-pressed", "true")


def test_a_tab_back_in_view_reads_the_server(tabs):
    first, second = tabs
    cell(second, 1, 1, "name").click()
    expect(second.locator("#kapr-value")).not_to_have_text("0.00%")
    synced = int(first.locator("#review").get_attribute("data-synced"))
    first.wait_for_timeout(2100)  # a tab re-reads at most every two seconds
    first.evaluate("document.dispatchEvent(new Event('visibilitychange'))")
    expect(first.locator("#review")).to_have_attribute("data-synced", str(synced + 1))
    expect(first.locator("#kapr-value")).to_have_text(second.locator("#kapr-value").inner_text())
    expect(cell(first, 1, 1, "name").locator(".value")).to_have_text(
        cell(second, 1, 1, "name").locator(".value").inner_text()
    )
