"""The custodian in a browser: the accountability report, then the close-out of the paper
example, and what a closed project answers afterwards."""

from __future__ import annotations

import zipfile

import pytest
from playwright.sync_api import expect

from app.extensions import db
from app.review.answers.save import save_answer
from app.review.services import reveal_cell
from tests.e2e.chart_checks import check_chart
from tests.e2e.test_login import log_in
from tests.factories import make_assignment, make_user, paper_project


@pytest.fixture
def project_id(app):
    """The paper example: wes reveals record 1's name twice and answers every pair."""
    with app.app_context():
        max_, wes = make_user("max", "manager"), make_user("wes")
        project = paper_project(max_, name="Paper")
        assignment = make_assignment(project, wes, 1.0)
        ids = (project.id, assignment.id, [link.pair_id for link in assignment.pairs])
        db.session.commit()
        for _ in range(2):
            reveal_cell(ids[1], ids[2][0], 0, "name", by=wes)
            db.session.commit()
        for pair_id in ids[2]:
            save_answer(ids[1], pair_id, "different", "high", by=wes)
            db.session.commit()
    return ids[0]


def test_accountability_then_close_out(page, live_server, project_id, tmp_path):
    problems: list[str] = []
    page.on("pageerror", lambda e: problems.append(str(e)))
    log_in(page, live_server, "max")
    page.goto(f"{live_server}/projects/{project_id}")
    page.get_by_role("link", name="Accountability", exact=True).click()
    assert "2 reveals" in page.locator("#reveal-count").inner_text()
    check_chart(page, page.locator("figure.chart"))
    name_row = page.locator("#summary tbody tr").first
    assert name_row.locator("td").all_inner_texts() == ["name", "3", "0", "1"]
    page.get_by_label("Record id").fill("1")
    page.get_by_role("button", name="Show its disclosures").click()
    rows = page.locator("#disclosures tbody tr")
    expect(rows).to_have_count(2)  # (the button loads the page again: wait for it)
    assert "masked → partial" in rows.nth(0).inner_text() and "wes" in rows.nth(0).inner_text()
    assert page.locator("#highest [data-level]").first.inner_text() == "full"
    with page.expect_download() as got:
        page.locator("#download-csv").click()
    assert got.value.suggested_filename == f"accountability_{project_id}.csv"

    page.goto(f"{live_server}/projects/{project_id}/closeout")
    with page.expect_download() as got:
        page.locator("#download-final").click()
    archive = tmp_path / "final.zip"
    got.value.save_as(archive)
    sums = zipfile.ZipFile(archive).read("SHA256SUMS").decode().split()
    page.get_by_role("button", name="Close out and destroy the values").click()
    assert "Tick the box" in page.locator(".flash").first.inner_text()  # nothing destroyed
    page.locator("#confirm").check()
    page.get_by_role("button", name="Close out and destroy the values").click()
    record = page.locator("#closeout-record")
    assert "max" in page.locator("#closed-by").inner_text()
    hashes = page.locator("#export-hashes code").all_inner_texts()
    assert hashes and set(hashes) <= set(sums)  # the hashes of the files downloaded
    assert "vault rows" in record.inner_text()
    # the pass over the database files is said (complete, or what it waits for)
    assert "erased from the database files" in page.locator("#erasure").inner_text().lower()
    assert page.locator("#beyond-reach li").count() >= 2

    page.goto(f"{live_server}/projects/{project_id}/progress")
    assert "closed out" in page.content()
    page.goto(f"{live_server}/projects/{project_id}")
    assert page.locator("#closed").is_visible()
    page.get_by_role("link", name="Accountability", exact=True).click()
    assert "2 reveals" in page.locator("#reveal-count").inner_text()
    assert problems == []


def test_workers_are_refused(page, live_server, project_id):
    log_in(page, live_server, "wes")
    answer = page.goto(f"{live_server}/projects/{project_id}/accountability")
    assert answer.status == 403


def test_admins_see_every_project_from_their_navigation(app, page, live_server, project_id):
    with app.app_context():
        make_user("ada", "admin")
    log_in(page, live_server, "ada")
    page.goto(f"{live_server}/admin/")
    page.locator("nav.admin-nav").get_by_role("link", name="Accountability").click()
    row = page.locator("#projects-accountability tbody tr").first
    assert row.locator("td").all_inner_texts()[:3] == ["Paper", "4", "2"]
    row.get_by_role("link", name="Paper").click()
    assert "2 reveals" in page.locator("#reveal-count").inner_text()
