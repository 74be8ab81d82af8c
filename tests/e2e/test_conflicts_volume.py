"""Fifty conflicts in a browser: pages, filters, a bulk resolution, and the page keeps its place."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from app.extensions import db
from app.models import User
from app.projects.blocking.pairing import create_pairs
from app.projects.staffing.workers import assign_workers
from tests.e2e.test_login import log_in
from tests.factories import make_user
from tests.projects.conftest import decide, linked_project

CONFLICTS = 50


@pytest.fixture
def app_overrides(tmp_path):
    return {"WTF_CSRF_ENABLED": True, "UPLOAD_FOLDER": str(tmp_path / "uploads")}


@pytest.fixture
def project(app):
    with app.app_context():
        people = {
            n: make_user(n, r).id
            for n, r in [("max", "manager"), ("wes", "worker"), ("wen", "worker")]
        }
        project = linked_project(people)
        create_pairs(project, [["last_name"]])
        wes, wen = assign_workers(project, {"wes": 0.5, "wen": 0.5}, coders=2)
        pair_ids = sorted(link.pair_id for link in wes.pairs)[:CONFLICTS]
        for pair_id in pair_ids:
            decide(wes, pair_id, "same")
            decide(wen, pair_id, "different", "low")
        db.session.commit()
        assert db.session.get(User, people["max"]).role == "manager"
        return project.id, pair_ids


def test_fifty_conflicts_paged_filtered_bulk_resolved_in_place(page, live_server, project):
    project_id, ids = project
    page.set_viewport_size({"width": 1280, "height": 800})
    log_in(page, live_server, "max")
    page.wait_for_url(f"{live_server}/projects/")
    page.goto(f"{live_server}/projects/{project_id}/conflicts")
    rows = page.locator("tbody.conflict")
    expect(rows).to_have_count(20)
    expect(page.locator("#queue-count")).to_have_text("Conflicts 1–20 of 50 (page 1 of 3)")
    page.get_by_label("Conflict pages (top)").get_by_role("link", name="2").click()
    expect(rows.first).to_have_id(f"conflict-{ids[20]}")

    # One row deep in page 2: resolved, the page stays on page 2 at the row now in its place.
    row = page.locator(f"#conflict-{ids[35]}")
    # Nothing is preselected: a resolution is the manager's choice, never a default's.
    expect(row.get_by_label(f"Decision for pair {ids[35]}")).to_have_value("")
    expect(row.get_by_label(f"Confidence for pair {ids[35]}")).to_have_value("")
    row.get_by_label(f"Decision for pair {ids[35]}").select_option("different")
    row.get_by_label(f"Confidence for pair {ids[35]}").select_option("high")
    row.get_by_role("button", name=f"Resolve pair {ids[35]}").click()
    expect(page.locator(".flash-info")).to_have_text(f"Pair {ids[35]} resolved: different.")
    assert "page=2" in page.url and page.url.endswith(f"#conflict-{ids[36]}")
    assert page.evaluate("window.scrollY") > 300  # not reloaded to the top
    expect(page.locator(f"#conflict-{ids[36]}")).to_be_in_viewport()

    # Only what waits for the manager, fifty per page; select a page's worth and resolve it.
    page.get_by_label("Show").select_option("todo")
    page.get_by_label("Per page").select_option("50")
    page.get_by_role("button", name="Show").click()
    expect(page.locator("#queue-count")).to_have_text("Conflicts 1–49 of 49")
    page.get_by_label("Select every conflict on this page").check()
    expect(page.locator("#selected-count")).to_have_text("49 selected")
    for pair_id in ids[:9]:  # keep the first nine for later
        page.get_by_label(f"Select pair {pair_id}", exact=True).uncheck()
    expect(page.locator("#selected-count")).to_have_text("40 selected")
    page.get_by_label("Decision for the selected conflicts").select_option("same")
    page.get_by_label("Confidence for the selected conflicts").select_option("low")
    page.get_by_role("button", name="Resolve selected").click()
    expect(page.locator(".flash-info")).to_have_text("40 conflict(s) resolved as same.")
    expect(page.locator("#queue-count")).to_have_text("Conflicts 1–9 of 9")
    assert [r.get_attribute("id") for r in rows.all()] == [f"conflict-{p}" for p in ids[:9]]
    expect(page.get_by_label("Show")).to_have_value("todo")  # the filter is kept
    expect(page.locator("#filter-state option[value=settled]")).to_have_text("settled (41)")
