"""The Release risk page in Chromium: check, chart, classes, thresholds, a confirmed export."""

from __future__ import annotations

import copy
import json

import pytest

from app.demo import PAPER_EXAMPLE
from tests.e2e.chart_checks import check_chart
from tests.e2e.test_login import log_in
from tests.e2e.test_risk_picture import console_errors
from tests.factories import make_user, paper_project


@pytest.fixture
def project_id(app):
    with app.app_context():
        manager = make_user("max", "manager")
        spec = copy.deepcopy(PAPER_EXAMPLE)
        spec["attributes"].append({"name": "zip", "type": "category", "sensitive": True})
        for record, zip_code in zip(spec["records"], ["100", "100", "*", "100"], strict=True):
            record["zip"] = zip_code
        return paper_project(manager, **spec).id


def test_release_risk_walk(page, live_server, project_id):
    problems = console_errors(page)
    log_in(page, live_server, "max")
    page.goto(f"{live_server}/projects/{project_id}")
    page.get_by_role("link", name="Release risk").click()
    # Defaults from the roles: zip (category) is the QI, income sensitive; "*" is left out.
    assert page.locator("#qi").input_value() == "zip"
    assert "k-anonymity: 3" in page.locator("#release-k").inner_text()
    assert "1 left out" in page.locator("#release-k").inner_text()
    check_chart(page, page.locator("figure.chart"))
    # sdcMicro's convention: the suppressed zip matches 100, so all four records form one class.
    page.locator("#suppressed").select_option("wildcard")
    page.locator("#population").fill("1000")
    page.get_by_role("button", name="Check").click()
    assert "k-anonymity: 4" in page.locator("#release-k").inner_text()
    assert "Dankar" in page.locator("#release-uniqueness").inner_text()
    with page.expect_download() as info:
        page.get_by_role("link", name="Download report (JSON)").click()
    report = json.loads(info.value.path().read_text())
    assert (report["k"], report["suppressed"]) == (4, "wildcard")
    # A threshold the export is above: the linked export now needs a recorded reason.
    page.locator("#min_k").fill("5")
    page.get_by_role("button", name="Save thresholds").click()
    assert "k = 4 is below the minimum 5" in page.locator("#release-gate").inner_text()
    page.locator("#reason").fill("approved by the data custodian")
    with page.expect_download() as info:
        page.get_by_role("button", name="Record the reason and download the linked export").click()
    assert info.value.path().read_text().startswith("cluster_id")
    page.reload()
    assert "approved by the data custodian" in page.locator("#release-confirmations").inner_text()
    assert problems == []
