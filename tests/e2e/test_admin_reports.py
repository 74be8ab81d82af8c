"""An admin runs the trajectory risk report on the mock files and audits Dempster's rule."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.e2e.test_login import log_in
from tests.factories import make_user

TRAJECTORY = Path(__file__).parent.parent / "data" / "trajectory"


@pytest.fixture
def ada(app):
    with app.app_context():
        make_user("ada", "admin")


def test_admin_runs_trajectory_risk_and_belief_audit(page, live_server, ada):
    log_in(page, live_server, "ada")
    page.wait_for_url(f"{live_server}/admin/")
    page.get_by_role("link", name="Trajectory risk").click()
    page.get_by_label("Original trajectories (CSV)").set_input_files(
        TRAJECTORY / "mock_original.csv"
    )
    page.get_by_label("Anonymized trajectories (CSV)").set_input_files(
        TRAJECTORY / "mock_anonymized.csv"
    )
    page.get_by_role("button", name="Run risk report").click()
    page.locator("#rl-percent").wait_for()
    assert page.locator("#rl-percent").inner_text() == "RL 28.26%"
    assert page.locator("#rl-linked").inner_text() == "13"
    assert "done" in page.locator("#job-status").inner_text()

    page.get_by_role("link", name="Jobs").click()
    page.get_by_role("link", name="Result of job 1").click()
    assert page.locator("#rl-percent").inner_text() == "RL 28.26%"

    page.get_by_role("link", name="Belief audit").click()
    page.get_by_label("Frame").fill("a, b")
    page.get_by_label("First body of evidence").fill("a: 1/2\na,b: 1/2")
    page.get_by_label("Second body of evidence").fill("a: 1/2\na,b: 1/2")
    page.get_by_label("True probability").fill("a: 1/2, b: 1/2")
    page.get_by_role("button", name="Audit").click()
    dempster = page.get_by_role("region", name="Dempster")
    assert "violation max(Bel(A) − P(A)) = 1/4 at A = {a}" in dempster.inner_text()
    assert "Compatible" in page.get_by_role("region", name="First body").inner_text()
