"""Clearing an answer in a real browser: the pair is unanswered, counts drop, reload agrees."""

from __future__ import annotations

from playwright.sync_api import expect

from tests.e2e.test_review_page import axe_violations, open_assignment, study  # noqa: F401


def test_answer_clear_and_reload(page, live_server, study):  # noqa: F811
    mine, _ = study(page_size=10, budget=0.5)
    errors: list[str] = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))  # an uncaught error in the JS
    open_assignment(page, live_server, mine)
    first, second = page.locator("tbody.pair").nth(0), page.locator("tbody.pair").nth(1)
    expect(page.get_by_role("button", name="Clear answer")).to_have_count(0)

    first.get_by_role("button", name="same, high confidence").click()
    expect(page.locator("#progress-text")).to_have_text("1 / 6")
    second.get_by_role("button", name="different, low confidence").click()
    expect(page.locator("#progress-text")).to_have_text("2 / 6")
    expect(page.locator("#tally")).to_contain_text("Same 1 (H 1, M 0, L 0)")

    first.get_by_role("button", name="Clear answer").click()
    expect(page.locator("#progress-text")).to_have_text("1 / 6")
    expect(page.locator("#tally")).to_contain_text("Same 0 (H 0, M 0, L 0)")
    expect(page.locator("#status")).to_contain_text("Pair 1: answer cleared")
    expect(first.locator('.choose[aria-pressed="true"]')).to_have_count(0)
    expect(first.get_by_role("button", name="Clear answer")).to_have_count(0)
    expect(second.locator('.choose[aria-pressed="true"]')).to_have_count(1)

    page.get_by_role("button", name="Submit page").click()
    expect(page.locator("#alert")).to_contain_text("answer pairs 1, 3, 4, 5, 6 first")

    page.reload()
    expect(page.locator("#review")).to_have_attribute("data-ready", "true")
    expect(page.locator("#progress-text")).to_have_text("1 / 6")
    first = page.locator("tbody.pair").nth(0)
    expect(first.locator('.choose[aria-pressed="true"]')).to_have_count(0)
    expect(page.get_by_role("button", name="Clear answer")).to_have_count(1)
    assert axe_violations(page) == []

    page.goto(f"{live_server}/review/")
    expect(page.locator("table.list tbody td").nth(1)).to_have_text("1 / 6")
    assert errors == []
