"""Private by default: on a ``generate-data`` file only name and date columns start
identifying; everything else, ground truth included, starts sensitive."""

from __future__ import annotations

import csv

import pytest

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
    assert all(r == "sensitive" for c, r in roles.items() if c not in IDENTIFYING)
    hint = page.get_by_text("Workers may only ever see")
    assert "never shown to workers" in hint.inner_text()
