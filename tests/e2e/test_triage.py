"""The manager's triage step in Chromium: FEBRL4's Splink predictions uploaded, the counts
above, inside and below the band and their histogram before committing, thresholds changed
without uploading again, the round imported and assigned; the worker reviews blind."""

from __future__ import annotations

import re

import numpy as np
import pyarrow.parquet as pq
import pytest
from playwright.sync_api import expect

from app.extensions import db
from app.projects.lifecycle import create_project
from tests import febrl as data
from tests.e2e.chart_checks import check_chart
from tests.e2e.test_login import log_in
from tests.factories import make_user

pytestmark = pytest.mark.slow
SCREENSHOT = "triage-preview.png"


@pytest.fixture
def app_overrides(tmp_path):
    return {"WTF_CSRF_ENABLED": True, "UPLOAD_FOLDER": str(tmp_path / "uploads")}


def _counts(path, lower: float, upper: float) -> dict[str, int]:
    p = pq.read_table(path, columns=["match_probability"]).column(0).to_numpy()
    return {
        "above": int((p > upper).sum()),
        "inside": int(((p >= lower) & (p <= upper)).sum()),
        "below": int((p < lower).sum()),
    }


def _shown(page, side: str) -> int:
    return int(page.locator(f"#count-{side} td").first.inner_text().replace(",", ""))


def test_triage_preview_commit_and_blind_review(page, live_server, app, febrl, tmp_path):
    with app.app_context():
        manager = make_user("max", "manager")
        make_user("wes", "worker")
        project = create_project(data.project_spec(febrl, "FEBRL4 linked"), manager)
        db.session.commit()
        project_id = project.id

    log_in(page, live_server, "max")
    page.wait_for_url(f"{live_server}/projects/")
    page.goto(f"{live_server}/projects/{project_id}")
    page.get_by_role("link", name="Scored pairs").click()
    page.get_by_label("Scored pairs file").set_input_files(febrl.parquet)
    page.get_by_label("Lower threshold").fill("0.05")
    page.get_by_label("Upper threshold").fill("0.95")
    page.get_by_label("Calibration sample").fill("50")
    page.get_by_label("Seed of the draw").fill("1")
    page.get_by_role("button", name="Preview the triage").click()

    expect(page.locator("#triage-preview")).to_be_visible(timeout=60_000)
    for side, count in _counts(febrl.parquet, 0.05, 0.95).items():
        assert _shown(page, side) == count, side
    assert page.locator("#count-calibration").inner_text() == "50"
    review = int(page.locator("#count-review").inner_text().replace(",", ""))
    figure = page.locator("figure.chart")
    drawn = check_chart(page, figure)
    assert drawn["series"] == ["Non-match (model)", "Band (review)", "Match (model)"]
    totals = np.array(drawn["data"]).sum(axis=1).tolist()
    assert totals == [_shown(page, s) for s in ("below", "inside", "above")]
    page.screenshot(path=str(tmp_path / SCREENSHOT), full_page=True)

    # Other thresholds, the same file: no second upload.
    page.get_by_label("Upper threshold").fill("0.5")
    page.get_by_role("button", name="Preview the triage").click()
    expect(page.locator("#count-above td").first).to_have_text(
        f"{_counts(febrl.parquet, 0.05, 0.5)['above']:,}", timeout=60_000
    )
    page.get_by_label("Upper threshold").fill("0.95")
    page.get_by_role("button", name="Preview the triage").click()
    expect(page.locator("#count-review")).to_have_text(f"{review:,}", timeout=60_000)
    page.get_by_role("button", name=re.compile(r"Import round 1")).click()

    page.get_by_role("heading", name="FEBRL4 linked", level=1).wait_for(timeout=60_000)
    expect(page.get_by_role("status").first).to_contain_text(f"{review:,} pairs to review")
    rounds = page.locator("#rounds tbody tr")
    expect(rounds).to_have_count(1)
    expect(rounds.first.locator("td").nth(3)).to_have_text(f"{review:,}")
    expect(rounds.first.locator("td").nth(5)).to_have_text("50")

    page.get_by_role("link", name="Assignments").click()
    page.get_by_label("wes", exact=True).check()
    page.get_by_label("Budget for wes").fill("1")
    page.get_by_role("button", name="Assign").click()
    page.get_by_role("heading", name="Progress:").wait_for()
    expect(page.locator("#workers tbody tr").first).to_contain_text(f"0 / {review}")

    page.get_by_role("button", name="Log out").click()
    log_in(page, live_server, "wes")
    page.get_by_role("link", name=re.compile("Start")).click()
    page.locator("tbody.pair").first.wait_for()
    assert page.locator(".model-score").count() == 0  # blind by default
    assert "0.9" not in page.locator("#grid").inner_text()
