"""Admins' pages and JSON: access, the KAPR report, trajectory uploads, belief audits, jobs."""

from __future__ import annotations

import io

import pytest
from sqlalchemy import func, select

from app.extensions import db
from app.models import Job, User
from tests.analytics.conftest import login
from tests.factories import make_token

PAGES = [
    "/admin/",
    "/admin/reports/kapr",
    "/admin/reports/kapr.csv",
    "/admin/risk/trajectories",
    "/admin/risk/belief",
    "/admin/jobs",
    "/api/v1/admin/reports/kapr",
]


@pytest.mark.parametrize("path", PAGES)
@pytest.mark.parametrize("username", ["max", "wes"])
def test_managers_and_workers_get_403(client, people, username, path):
    login(client, username)
    assert client.get(path).status_code == 403


@pytest.mark.parametrize("path", PAGES)
def test_admin_pages_render(admin, path):
    assert admin.get(path).status_code == 200


def test_api_needs_credentials_and_takes_an_admin_token(client, people, app):
    assert client.get("/api/v1/admin/reports/kapr").status_code == 401
    with app.app_context():
        token = make_token(db.session.get(User, people["ada"]))
    response = client.get(
        "/api/v1/admin/reports/kapr", headers={"Authorization": f"Bearer {token}"}
    )
    assert response.get_json() == {"assignments": [], "projects": [], "workers": []}


def test_kapr_csv_download(admin):
    response = admin.get("/admin/reports/kapr.csv")
    assert response.mimetype == "text/csv"
    assert "attachment" in response.headers["Content-Disposition"]
    assert response.get_data(as_text=True).startswith("project,worker,assignments,pairs,kapr")


def upload(client, original: bytes, anonymized: bytes, **form):
    data = {
        "original": (io.BytesIO(original), "mock_original.csv"),
        "anonymized": (io.BytesIO(anonymized), "mock_anonymized.csv"),
        **form,
    }
    return client.post("/admin/risk/trajectories", data=data, content_type="multipart/form-data")


def job_count(app) -> int:
    with app.app_context():
        return db.session.scalar(select(func.count()).select_from(Job))


def test_trajectory_upload_runs_a_job_and_shows_rl(admin, app, original_csv, anonymized_csv):
    response = upload(admin, original_csv.encode(), anonymized_csv.encode())
    assert response.status_code == 302 and response.location.endswith("/admin/jobs/1")
    page = admin.get(response.location).get_data(as_text=True)
    assert "RL 28.26%" in page and "(13/46)" in page and 'http-equiv="refresh"' not in page
    status = admin.get("/api/v1/admin/jobs/1").get_json()
    assert (status["status"], status["progress_done"], status["progress_total"]) == (
        "done", 46, 46
    )  # fmt: skip
    assert status["result"]["exact"]["risk"] == "13/46"
    jobs_page = admin.get("/admin/jobs").get_data(as_text=True)
    assert "trajectory_risk" in jobs_page and "Result of job 1" in jobs_page


def test_windowed_upload_shows_the_trade_off(admin, original_csv, anonymized_csv):
    response = upload(
        admin, original_csv.encode(), anonymized_csv.encode(),
        search="windowed", window_percent="10", compare_exact="on",
    )  # fmt: skip
    page = admin.get(response.location).get_data(as_text=True)
    assert 'id="tradeoff"' in page
    assert "RL 21.74%" in page and "28.26%" in page


def test_a_bad_file_shows_its_line_and_creates_no_job(admin, app, original_csv):
    bad = b"lon,lat,timestamp,trajectory_id,user_id\n1.2,41.1,2022-11-21,1,1\n"
    response = upload(admin, original_csv.encode(), bad, distance="dtw")
    assert response.status_code == 400
    page = response.get_data(as_text=True)
    assert "mock_anonymized.csv: line 2: column timestamp: not YYYY/MM/DD HH:MM:SS" in page
    assert 'value="dtw" selected' in page  # the options are kept
    assert job_count(app) == 0


def test_bad_options_create_no_job(admin, app, original_csv, anonymized_csv):
    response = upload(admin, original_csv.encode(), anonymized_csv.encode(), lam="zero")
    assert response.status_code == 400
    assert "λ must be a number" in response.get_data(as_text=True)
    assert job_count(app) == 0


def test_a_failed_job_shows_its_error(admin, app):
    with app.app_context():
        db.session.add(Job(kind="trajectory_risk", status="failed", error="ValueError: boom"))
        db.session.commit()
    page = admin.get("/admin/jobs/1").get_data(as_text=True)
    assert "The job failed: ValueError: boom" in page
    assert admin.get("/admin/jobs/99").status_code == 404
    assert admin.get("/api/v1/admin/jobs/99").status_code == 404


def test_a_running_job_page_refreshes(admin, app):
    with app.app_context():
        db.session.add(Job(kind="trajectory_risk", status="running", progress_total=46,
                           progress_done=10))  # fmt: skip
        db.session.commit()
    page = admin.get("/admin/jobs/1").get_data(as_text=True)
    assert 'http-equiv="refresh"' in page and "10 / 46" in page


def test_belief_audit_shows_dempster_violation(admin):
    form = admin.get("/admin/risk/belief?example=dempster").get_data(as_text=True)
    assert "a: 1/2, b: 1/2" in form
    page = admin.post(
        "/admin/risk/belief",
        data={"mode": "masses", "frame": "a, b", "first": "a: 1/2\na,b: 1/2",
              "second": "a: 1/2\na,b: 1/2", "probability": "a: 1/2, b: 1/2"},
    ).get_data(as_text=True)  # fmt: skip
    assert '<span class="exact">1/4</span>' in page and "at A = {a}" in page
    assert "Compatible with the true probability" in page  # the first body alone is


def test_belief_parse_error_is_shown_with_input_kept(admin):
    response = admin.post("/admin/risk/belief", data={"first": "a,b 1/2\n"})
    assert response.status_code == 400
    page = response.get_data(as_text=True)
    assert "First body, line 1: write the set, a colon, then its mass" in page
    assert "a,b 1/2" in page


def test_posting_from_the_example_page_audits_what_was_posted(admin):
    page = admin.post(
        "/admin/risk/belief?example=dempster", data={"first": "x,y: 1", "probability": "x: 1"}
    ).get_data(as_text=True)
    assert "{x, y}" in page and "{a}" not in page
