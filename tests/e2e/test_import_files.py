"""Files as they come, in a real browser: MINDFIRL's headerless 2025 study set, dates in a
layout with the unreadable ones kept as missing, a frequency file on a link project (LYNN at
100 reads "common" on the worker's page), the messages of a failed import, and a trajectory
job's whole result downloaded and audited. ``SCREENSHOTS=<folder>`` keeps a picture of each
page (the walk the issue asks for)."""

from __future__ import annotations

import json
import os
import re
from pathlib import Path

import pytest
from playwright.sync_api import expect

from tests.e2e.test_login import log_in
from tests.factories import make_user

DATA = Path(__file__).parent.parent / "data"
MINDFIRL = DATA / "mindfirl"
TRAJECTORY = DATA / "trajectory"


@pytest.fixture
def app_overrides(tmp_path):
    return {"WTF_CSRF_ENABLED": True, "UPLOAD_FOLDER": str(tmp_path / "uploads")}


@pytest.fixture
def team(app):
    with app.app_context():
        for name, role in [("max", "manager"), ("wes", "worker"), ("ada", "admin")]:
            make_user(name, role)


def shot(page, name: str) -> None:
    if os.environ.get("SCREENSHOTS"):
        page.screenshot(path=str(Path(os.environ["SCREENSHOTS"]) / name), full_page=True)


def new_project(page, base, name, kind_label, **files):
    page.goto(f"{base}/projects/new")
    page.get_by_label("Project name").fill(name)
    page.get_by_label(kind_label).check()
    for label, path in files.items():
        page.get_by_label(label).set_input_files(path)
    page.get_by_role("button", name="Upload and preview").click()


def test_section2_without_a_header_imports_as_331_pairs(page, live_server, team):
    page.set_viewport_size({"width": 1280, "height": 900})
    log_in(page, live_server, "max")
    page.wait_for_url(f"{live_server}/projects/")
    new_project(
        page, live_server, "Study 2025", "Import a MINDFIRL pair file",
        **{"Pair file (PairID": MINDFIRL / "section2.csv"},
    )  # fmt: skip
    page.get_by_role("heading", name="Preview: section2.csv (pairs)").wait_for()
    expect(page.get_by_label("First row of section2.csv (pairs)")).to_have_value("no")
    expect(page.get_by_label("Column names of a file without a header row")).to_have_value(
        re.compile(r"^PairID,voter_reg_num,FFreq,first_name,last_name,LFreq,dob,")
    )
    expect(page.get_by_label("Role of helper_dob")).to_have_value("ignored")
    expect(page.get_by_label("Role of truth")).to_have_value("truth")
    page.get_by_label("Role of voter_reg_num").select_option("identifying")
    page.get_by_label("Type of voter_reg_num").select_option("id")
    for column in ("sex", "race"):
        page.get_by_label(f"Role of {column}").select_option("identifying")
        page.get_by_label(f"Type of {column}").select_option("category")
    shot(page, "1-map-section2.png")
    page.get_by_role("button", name="Validate").click()
    expect(page.locator("#check-summary")).to_have_text(
        "Every row is valid and will be imported as it is."
    )
    expect(page.get_by_text("331 pairs")).to_be_visible()
    expect(page.get_by_text("Ground truth (vault): truth")).to_be_visible()
    shot(page, "2-checked-section2.png")
    page.get_by_role("button", name="Import").click()
    page.get_by_role("heading", name="Study 2025", level=1).wait_for()


FEBRLISH = (
    "rec_id,given_name,surname,date_of_birth,soc_sec_id\n"
    "rec-1-org,ann,lee,19460704,111\nrec-2-org,bob,ray,19461304,222\n"
    "rec-3-org,cy,lo,,333\nrec-4-org,dee,li,19900230,444\n"
)


def test_dates_in_a_layout_and_unreadable_ones_kept_as_missing(page, live_server, team, tmp_path):
    path = tmp_path / "febrl_like.csv"
    path.write_text(FEBRLISH)
    log_in(page, live_server, "max")
    page.wait_for_url(f"{live_server}/projects/")
    new_project(page, live_server, "FEBRL-like", "Deduplicate one file", **{"File A (link)": path})
    page.get_by_role("heading", name="Preview: febrl_like.csv (A)").wait_for()
    expect(page.get_by_label("Type of date_of_birth")).to_have_value("date")
    expect(page.get_by_label("Date format of date_of_birth")).to_have_value("%Y%m%d")
    page.get_by_label("Role of rec_id").select_option("id")
    page.get_by_role("button", name="Validate").click()
    alert = page.get_by_role("alert")
    expect(alert).to_contain_text("2 problems")
    expect(alert).to_contain_text("file A, line 3, column 'date_of_birth': not a calendar date")
    shot(page, "3-date-problems.png")
    page.get_by_label("Dates that cannot be read").select_option("missing")
    page.get_by_role("button", name="Validate").click()
    expect(page.locator("#check-summary")).to_contain_text(
        "but 2 dates that cannot be read will be kept as missing"
    )
    expect(page.locator("#missing-columns")).to_have_text("file A, column date_of_birth: 2")
    shot(page, "4-dates-kept-missing.png")
    page.get_by_role("button", name="Import").click()
    page.get_by_role("heading", name="FEBRL-like", level=1).wait_for()


def test_a_frequency_file_on_a_link_project_reaches_the_worker(browser, page, live_server, team):
    log_in(page, live_server, "max")
    page.wait_for_url(f"{live_server}/projects/")
    new_project(
        page, live_server, "Dev with names", "Link two files",
        **{"File A (link)": MINDFIRL / "dev_file1.csv", "File B (link only)":
           MINDFIRL / "dev_file2.csv", "Name frequencies": MINDFIRL / "name_freq.csv"},
    )  # fmt: skip
    page.get_by_role("heading", name="Preview: name_freq.csv (freq)").wait_for()
    page.get_by_label("Record ids").select_option("keep_first")
    page.get_by_role("button", name="Validate").click()
    expect(page.locator("#check-summary")).to_contain_text("but 8 rows will be dropped")
    expect(page.get_by_text("6 name frequencies")).to_be_visible()
    shot(page, "5-checked-dev-with-frequencies.png")
    page.get_by_role("button", name="Import").click()
    page.get_by_role("heading", name="Dev with names", level=1).wait_for()
    page.get_by_role("link", name="Blocking").click()
    page.get_by_label("Rule 1 key 1 attribute").select_option("last_name")
    page.get_by_role("button", name="Preview pair counts").click()
    page.get_by_role("button", name=re.compile(r"^Create \d+ pairs$")).click()
    page.get_by_role("link", name="Assignments").click()
    page.get_by_label("wes", exact=True).check()
    page.get_by_label("Budget for wes").fill("1")
    page.get_by_role("button", name="Assign").click()
    page.get_by_role("heading", name="Progress:").wait_for()

    context = browser.new_context()
    worker = context.new_page()
    log_in(worker, live_server, "wes")
    worker.wait_for_url(f"{live_server}/review/")
    worker.get_by_role("link", name="Start Dev with names").click()
    expect(worker.locator("#review")).to_have_attribute("data-ready", "true")
    # The first page blocks on WILDING: its first names are LYNN (100 in the file: common)
    # and LYNN I (not in the file: unknown); none is "rare" as the dev files alone count.
    first_names = worker.locator('td:has(.cell[data-attr="first_name"]) .freq')
    classes = {t.split()[-1] for t in first_names.all_inner_texts()}
    assert classes == {"common", "unknown"}, classes
    worker.set_viewport_size({"width": 1280, "height": 900})
    shot(worker, "6-worker-frequencies.png")
    context.close()


def test_the_messages_of_a_failed_upload(page, live_server, team):
    log_in(page, live_server, "max")
    page.wait_for_url(f"{live_server}/projects/")
    new_project(
        page, live_server, "Dev link", "Link two files",
        **{"File A (link)": MINDFIRL / "dev_file1.csv",
           "File B (link only)": MINDFIRL / "dev_file2.csv"},
    )  # fmt: skip
    page.get_by_role("button", name="Validate").click()  # repeated ids are rejected
    alert = page.get_by_role("alert")
    expect(alert).to_contain_text("9 problems; please fix")
    expect(
        alert.get_by_text(re.compile(r"^file A, line \d+, column 'ID': duplicate"))
    ).to_have_count(4)
    expect(
        alert.get_by_text(re.compile(r"^file B, line \d+, column 'ID': duplicate"))
    ).to_have_count(4)
    shot(page, "7-problems-both-files.png")
    # A picture uploaded as the data is called a picture; "upload again" keeps name and kind.
    new_project(
        page, live_server, "Pictures", "Deduplicate one file",
        **{"File A (link)": DATA / "malformed" / "binary.csv"},
    )  # fmt: skip
    expect(page.get_by_role("alert")).to_contain_text("this is a PNG image, not a CSV file")
    shot(page, "8-png.png")
    page.get_by_role("link", name="Upload the files again").click()
    expect(page.get_by_label("Project name")).to_have_value("Pictures")
    expect(page.get_by_label("Deduplicate one file")).to_be_checked()


def test_a_trajectory_job_result_downloaded_and_audited_whole(page, live_server, team, tmp_path):
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
    shot(page, "9-trajectory-job.png")
    with page.expect_download() as info:
        page.get_by_role("link", name=re.compile("^Download the whole result")).click()
    target = tmp_path / "job.json"
    info.value.save_as(target)
    assert len(json.loads(target.read_text())["exact"]["all_links"]["rows"]) == 46
    page.get_by_role("link", name="Audit it with belief functions").click()
    expect(page.locator("#links-result tbody tr")).to_have_count(46)
    expect(page.get_by_text(re.compile(r"mean probability of the truth 13/46"))).to_be_visible()
    shot(page, "10-audit-of-the-job.png")
    # The downloaded file audits the same on "Audit a linkage output".
    page.get_by_label("File (CSV or JSON)").set_input_files(target)
    page.get_by_role("button", name="Audit").click()
    expect(page.locator("#links-result tbody tr")).to_have_count(46)
