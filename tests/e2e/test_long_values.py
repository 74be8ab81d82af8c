"""Long (300-character) values in a real browser: the worker's grid and the import preview
keep their width, cut a long value with "…" and show the whole of it on demand (in the grid,
the whole of what has been disclosed to that worker, never more)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from playwright.sync_api import expect

from app.projects.lifecycle import create_project
from tests.e2e.test_login import log_in
from tests.factories import make_assignment, make_user

LONG = ("Apartment 12, Building C, " * 12)[:299] + "Z"  # 300 characters
SECOND = LONG.replace("Building C", "Building D")


@pytest.fixture
def app_overrides(tmp_path):
    return {"WTF_CSRF_ENABLED": True, "UPLOAD_FOLDER": str(tmp_path / "uploads")}


@pytest.fixture
def long_assignment(app):
    with app.app_context():
        manager, worker = make_user("max", "manager"), make_user("wes")
        project = create_project(
            {
                "name": "Addresses",
                "kind": "dedupe",
                "attributes": [{"name": "first_name"}, {"name": "address"}],
                "records": [
                    {"id": "1", "first_name": "LYNN", "address": LONG},
                    {"id": "2", "first_name": "LYNN", "address": SECOND},
                ],
                "pairs": [["1", "2"]],
            },
            manager,
        )
        return make_assignment(project, worker, budget=1.0).id


def no_sideways_scroll(page) -> bool:
    return page.evaluate(
        "() => document.documentElement.scrollWidth <= document.documentElement.clientWidth"
    )


def test_a_long_value_is_cut_and_shown_whole_on_demand(page, live_server, long_assignment):
    page.set_viewport_size({"width": 1280, "height": 900})
    log_in(page, live_server, "wes")
    page.wait_for_url(f"{live_server}/review/")
    page.goto(f"{live_server}/review/assignments/{long_assignment}")
    expect(page.locator("#review")).to_have_attribute("data-ready", "true")
    assert no_sideways_scroll(page)
    address = page.locator('.cell[data-row="0"][data-attr="address"]')
    value = address.locator(".value")
    assert value.evaluate("v => v.scrollWidth > v.clientWidth")  # cut, with an ellipsis
    assert LONG not in page.content()  # masked: not a character of it is in the page
    # Reveal it fully (masked -> partial -> full), then show it whole.
    for level in ("partial", "full"):
        address.click()
        expect(page.locator('.cell[data-row="0"][data-attr="address"]')).to_have_class(
            f"cell level-{level} " + ("open" if level == "partial" else "done")
        )
        page.wait_for_load_state("networkidle")
    expand = page.get_by_role("button", name="Show all of pair 1, record A, address")
    expand.click()
    whole = page.locator('.cell[data-row="0"][data-attr="address"] .value')
    expect(page.locator("td.whole")).to_have_count(1)
    assert LONG in whole.inner_text().replace("\n", "")
    assert whole.evaluate("v => v.scrollWidth <= v.clientWidth")  # wrapped, not cut
    assert no_sideways_scroll(page)
    screenshot(page, "grid-long-value.png")
    # Record B was never revealed: its "show all" shows only masked characters.
    page.get_by_role("button", name="Show all of pair 1, record B, address").click()
    other = page.locator('.cell[data-row="1"][data-attr="address"] .value').inner_text()
    assert "Building" not in other
    page.get_by_role("button", name="Fold pair 1, record A, address").click()
    expect(page.locator("td.whole")).to_have_count(1)  # B's stays open, A's folded


def test_the_import_preview_cuts_long_values(page, live_server, app):
    with app.app_context():
        make_user("max", "manager")
    page.set_viewport_size({"width": 1280, "height": 900})
    log_in(page, live_server, "max")
    page.wait_for_url(f"{live_server}/projects/")
    page.goto(f"{live_server}/projects/new")
    page.get_by_label("Project name").fill("Long values")
    page.get_by_label("Deduplicate one file").check()
    body = f'ID,first_name,last_name,address\n1,LYNN,WILDING,"{LONG}"\n2,JEAN,ADAMS,short\n'
    page.get_by_label("File A (link)").set_input_files(
        {"name": "long.csv", "mimeType": "text/csv", "buffer": body.encode()}
    )
    page.get_by_role("button", name="Upload and preview").click()
    page.get_by_role("heading", name="Preview: long.csv (A)").wait_for()
    assert no_sideways_scroll(page)
    cut = page.locator("details.long-value")
    expect(cut).to_have_count(1)
    expect(cut.locator("summary")).to_contain_text("(300 characters)")
    assert not cut.locator(".full").is_visible()
    cut.locator("summary").click()
    expect(cut.locator(".full")).to_have_text(LONG)
    assert no_sideways_scroll(page)
    screenshot(page, "preview-long-value.png")


def screenshot(page, name: str) -> None:
    """Keep a picture of the page when ``SCREENSHOTS`` names a folder (a manual walk)."""
    if os.environ.get("SCREENSHOTS"):
        page.screenshot(path=str(Path(os.environ["SCREENSHOTS"]) / name), full_page=True)
