"""The scoring page in Chromium: upload Splink's model, see its weights drawn, score, download."""

from __future__ import annotations

import pyarrow.parquet as pq
import pytest

from tests.e2e.chart_checks import check_chart
from tests.e2e.test_login import log_in
from tests.factories import make_user
from tests.projects.scoring.conftest import MODEL_FILE
from tests.projects.scoring.febrl import febrl4_project


@pytest.fixture
def app_overrides(tmp_path):
    return {
        "WTF_CSRF_ENABLED": True,
        "SCORING_WORK_DIR": str(tmp_path / "work"),
        "SCORING_OUTPUT_DIR": str(tmp_path / "scores"),
    }


@pytest.fixture
def febrl_small(app):
    with app.app_context():
        return febrl4_project(make_user("max", "manager"), limit=300).id


def test_upload_a_model_see_its_weights_score_and_download(page, live_server, febrl_small):
    problems: list[str] = []
    page.on("console", lambda m: problems.append(m.text) if m.type == "error" else None)
    page.on("pageerror", lambda e: problems.append(str(e)))
    log_in(page, live_server, "max")
    page.goto(f"{live_server}/projects/{febrl_small}")
    page.get_by_role("link", name="Scoring (Splink)").click()
    page.get_by_label("Splink model JSON").set_input_files(str(MODEL_FILE))
    page.get_by_role("button", name="Check and store").click()
    page.get_by_text("Model checked and stored.").wait_for()
    weights = page.locator("figure.chart").first
    drawn = check_chart(page, weights)
    assert drawn["labels"][0] == "prior (λ)" and len(drawn["labels"]) > 10

    page.get_by_role("button", name="Score the records with this model").click()
    page.locator("#scoring-job").get_by_text("Status: done").wait_for(timeout=60_000)
    page.get_by_role("link", name="Back to the model").click()
    with page.expect_download() as info:
        page.get_by_role("link", name="Download the predictions (Parquet)").click()
    table = pq.read_table(info.value.path())
    assert table.num_rows > 300 and table.column_names[:2] == ["source_dataset_l", "unique_id_l"]
    assert problems == []
