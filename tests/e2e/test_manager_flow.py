"""A manager creates a linkage project in the browser and downloads every export."""

from __future__ import annotations

import csv
from pathlib import Path

import pytest

from tests.e2e.test_login import log_in
from tests.factories import make_user

MINDFIRL = Path(__file__).parent.parent / "data" / "mindfirl"


@pytest.fixture
def app_overrides(tmp_path):
    return {"WTF_CSRF_ENABLED": True, "UPLOAD_FOLDER": str(tmp_path / "uploads")}


@pytest.fixture
def team(app):
    with app.app_context():
        for name, role in [("max", "manager"), ("wes", "worker"), ("wen", "worker")]:
            make_user(name, role)


def test_manager_links_blocks_assigns_and_exports(page, live_server, team, tmp_path):
    log_in(page, live_server, "max")
    page.wait_for_url(f"{live_server}/projects/")
    page.get_by_role("link", name="New project").click()
    page.get_by_label("Project name").fill("Dev link")
    page.get_by_label("Link two files").check()
    page.get_by_label("File A (link)").set_input_files(MINDFIRL / "dev_file1.csv")
    page.get_by_label("File B (link only)").set_input_files(MINDFIRL / "dev_file2.csv")
    page.get_by_role("button", name="Upload and preview").click()

    page.get_by_role("heading", name="Preview: dev_file1.csv (A)").wait_for()
    assert page.get_by_label("Role of ID").input_value() == "id"
    assert page.get_by_label("Type of dob").input_value() == "date"
    page.get_by_label("Role of info1").select_option("sensitive")
    page.get_by_label("Repeated ids").select_option("keep_first")
    page.get_by_role("button", name="Validate").click()
    page.get_by_text("Every row is valid.").wait_for()
    page.get_by_role("button", name="Import").click()

    page.get_by_role("heading", name="Dev link", level=1).wait_for()
    page.get_by_role("link", name="Blocking").click()
    page.get_by_label("Rule 1 key 1 attribute").select_option("last_name")
    page.get_by_role("button", name="Preview pair counts").click()
    total = int(page.locator("#total").inner_text())
    assert total > 0
    assert page.locator("#counts tbody td").first.inner_text() == "last_name exact"
    page.get_by_role("button", name=f"Create {total} pairs").click()
    assert page.locator("#pair-count").inner_text() == f"{total} pairs"

    page.get_by_role("link", name="Assignments").click()
    for worker, budget in [("wes", "0.5"), ("wen", "0.4")]:
        page.get_by_label(worker, exact=True).check()
        page.get_by_label(f"Budget for {worker}").fill(budget)
    page.get_by_label("Double: each pair to two workers").check()
    page.get_by_role("button", name="Assign").click()
    page.get_by_role("heading", name="Progress:").wait_for()
    rows = page.locator("#workers tbody tr")
    assert rows.count() == 2
    assert f"0 / {total}" in rows.first.inner_text()

    page.get_by_role("link", name="Dev link").click()
    for kind, first_column in [("labels", "source_dataset_l"), ("clusters", "cluster_id"),
                               ("linked", "cluster_id")]:  # fmt: skip
        with page.expect_download() as info:
            page.get_by_role("link", name=f"Download {kind} CSV").click()
        target = tmp_path / f"{kind}.csv"
        info.value.save_as(target)
        table = list(csv.reader(target.read_text(encoding="utf-8").splitlines()))
        assert table[0][0] == first_column
        assert len(table) > 1
        if kind == "labels":
            assert len(table) == 1 + 2 * total
