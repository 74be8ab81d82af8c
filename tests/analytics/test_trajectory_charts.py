"""The trajectory job page's charts and their CSV/JSON downloads; cancelling from the page."""

from __future__ import annotations

import csv
import io

import pytest

from app.extensions import db
from app.models import Job
from tests.analytics.test_web import upload


@pytest.fixture
def swept(admin, original_csv, anonymized_csv):
    response = upload(admin, original_csv.encode(), anonymized_csv.encode(), sweep="on")
    return admin, response.location


def rows(response) -> list[list[str]]:
    assert response.status_code == 200 and response.mimetype == "text/csv"
    assert response.headers["Cache-Control"] == "no-store"
    return list(csv.reader(io.StringIO(response.get_data(as_text=True))))


def test_the_job_page_draws_every_chart_with_its_data(swept):
    admin, url = swept
    page = admin.get(url).get_data(as_text=True)
    assert page.count('<figure class="chart"') == 4
    for title in ("RL per distance", "Distance to the nearest original",
                  "RL against window size", "Run time against window size"):  # fmt: skip
        assert title in page
    assert "chart-4.6.1.umd.min.js" in page and "charts-1.0.0.js" in page
    assert "<script>" not in page  # data blocks only: no inline script under the CSP


def test_window_sweep_csv_has_rl_per_window(swept):
    admin, url = swept
    data = rows(admin.get(f"{url}/trajectory/window-rl.csv"))
    assert data[0] == ["Series", "Window (% of the originals)", "RL (%)"]
    windowed = {float(r[1]): float(r[2]) for r in data[1:] if r[0] == "Windowed RL (%)"}
    assert windowed[1.0] == pytest.approx(8.695652173913043)
    assert windowed[10.0] == pytest.approx(21.73913043478261)
    assert windowed[100.0] == pytest.approx(28.26086956521739)
    exact = {float(r[2]) for r in data[1:] if r[0] == "Exact RL (%)"}
    assert exact == {28.26086956521739}
    timing = rows(admin.get(f"{url}/trajectory/window-time.csv"))
    assert len(timing) == 8 and all(float(r[2]) >= 0 for r in timing[1:])


def test_nearest_distance_histogram_counts_every_trajectory(swept):
    admin, url = swept
    data = rows(admin.get(f"{url}/trajectory/nearest.csv"))
    assert data[0][1:] == ["Linked to its true original", "Not linked"]
    assert sum(int(r[1]) for r in data[1:]) == 13
    assert sum(int(r[1]) + int(r[2]) for r in data[1:]) == 46
    spec = admin.get(f"{url}/trajectory/nearest.json").get_json()
    assert spec["type"] == "bar" and len(spec["labels"]) == len(data) - 1


def test_ensemble_reports_rl_per_distance_and_the_worst(admin, original_csv, anonymized_csv):
    response = upload(admin, original_csv.encode(), anonymized_csv.encode(), distance="ensemble")
    page = admin.get(response.location).get_data(as_text=True)
    assert 'id="ensemble-max"' in page and 'id="ensemble"' in page
    data = rows(admin.get(f"{response.location}/trajectory/distances.csv"))
    per = {r[0]: float(r[1]) for r in data[1:]}
    assert set(per) == {"martinez2021", "corrected", "dtw", "frechet", "hausdorff", "edr"}
    assert per["martinez2021"] == pytest.approx(28.26086956521739)
    status = admin.get(f"/api/v1/admin/jobs/{response.location.rsplit('/', 1)[1]}").get_json()
    report = status["report"]
    assert report["rl_percent"] == max(per.values()) == report["ensemble"]["max"]["rl_percent"]
    assert report["distance"] == report["ensemble"]["max"]["distance"]


def test_unknown_chart_or_job_is_404(swept, admin):
    _, url = swept
    assert admin.get(f"{url}/trajectory/nope.csv").status_code == 404
    assert admin.get(f"{url}/trajectory/nearest.xml").status_code == 404
    assert admin.get("/admin/jobs/999/trajectory/nearest.csv").status_code == 404


def test_cancel_from_the_page(admin, app):
    with app.app_context():
        job = Job(kind="import", status="running")
        db.session.add(job)
        db.session.commit()
        job_id = job.id
    page = admin.get(f"/admin/jobs/{job_id}").get_data(as_text=True)
    assert "Cancel this job" in page
    response = admin.post(f"/admin/jobs/{job_id}/cancel", follow_redirects=True)
    assert "Job cancelled" in response.get_data(as_text=True)
    with app.app_context():
        assert db.session.get(Job, job_id).status == "cancelled"
    again = admin.post(f"/admin/jobs/{job_id}/cancel", follow_redirects=True)
    assert "already finished" in again.get_data(as_text=True)
