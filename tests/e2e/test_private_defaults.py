"""Private by default: on a ``generate-data`` file only name and date columns start
identifying, ``cluster_id`` starts as the ground truth, everything else starts sensitive; after
the import, risk against utility finds the ground truth without being told."""

from __future__ import annotations

import csv
import re

import pytest
from playwright.sync_api import expect

from tests.e2e.test_login import log_in
from tests.factories import make_user

IDENTIFYING = {"first_name", "last_name", "dob"}


@pytest.fixture
def app_overrides(tmp_path):
    return {"WTF_CSRF_ENABLED": True, "UPLOAD_FOLDER": str(tmp_path / "uploads")}


def test_mapping_defaults_only_names_and_dates_identifying(app, live_server, page, tmp_path):
    with app.app_context():
        make_user("max", "manager")
    data = tmp_path / "people.csv"
    result = app.test_cli_runner().invoke(
        args=["generate-data", "--records", "200", "--seed", "1", "--out", str(data)]
    )
    assert result.exit_code == 0, result.output
    header = next(csv.reader(data.read_text(encoding="utf-8").splitlines()))
    assert {"cluster_id", "income", "diagnosis"} <= set(header)

    log_in(page, live_server, "max")
    page.wait_for_url(f"{live_server}/projects/")
    page.get_by_role("link", name="New project").click()
    page.get_by_label("Project name").fill("Generated")
    page.get_by_label("Link two files").check()
    page.get_by_label("File A (link)").set_input_files(data)
    page.get_by_label("File B (link only)").set_input_files(data)
    page.get_by_role("button", name="Upload and preview").click()
    page.get_by_role("heading", name="Preview: people.csv (A)").wait_for()

    roles = {c: page.get_by_label(f"Role of {c}").input_value() for c in header}
    assert roles.pop("id") == "id"
    assert {c for c, r in roles.items() if r == "identifying"} == IDENTIFYING
    assert {c for c, r in roles.items() if r != "identifying"} == set(header) - IDENTIFYING - {"id"}
    assert roles.pop("cluster_id") == "truth"
    assert all(r == "sensitive" for c, r in roles.items() if c not in IDENTIFYING)
    hint = page.get_by_text("Workers may only ever see")
    assert "never shown to workers" in hint.inner_text()
    truth_hint = page.locator("#truth-hint").inner_text()
    assert "never shown to workers" in truth_hint and "risk–utility" in truth_hint
    expect(page.get_by_label("Role of cluster_id").locator("option:checked")).to_have_text(
        "ground truth"
    )

    # Import as proposed, make pairs, and open risk against utility naming no column.
    page.get_by_label("Record ids").select_option("keep_first")
    page.get_by_role("button", name="Validate").click()
    expect(page.locator("#check-summary")).to_contain_text("Every row is valid")
    page.get_by_role("button", name="Import").click()
    page.get_by_role("heading", name="Generated", level=1).wait_for()
    project_url = page.url.split("?")[0].rstrip("/")
    page.get_by_role("link", name="Blocking").click()
    page.get_by_label("Rule 1 key 1 attribute").select_option("last_name")
    page.get_by_role("button", name="Preview pair counts").click()
    page.get_by_role("button", name=re.compile(r"^Create \d+ pairs$")).click()
    expect(page.locator("#pair-count")).to_have_text(re.compile(r"^[1-9]\d* pairs$"))
    page.goto(f"{project_url}/risk-utility")
    source = page.locator("#truth-source").inner_text()
    assert re.search(r"the column 'cluster_id': [1-9]\d* pairs with a known answer", source)
    expect(page.locator("#truth-problem")).to_have_count(0)
    expect(page.get_by_label(re.compile("^Non-identifying column"))).to_have_value("cluster_id")
