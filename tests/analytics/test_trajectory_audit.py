"""A trajectory job's result: downloadable from its page and audited whole (every anonymized
trajectory, those linked to no true original included), in the browser, the API and the CLI."""

from __future__ import annotations

import io
import json
from fractions import Fraction

import pytest

from app.analytics.belief import BeliefRequestError, audit_upload
from app.extensions import db
from app.models import User
from tests.analytics.test_web import upload
from tests.factories import make_token


def mean(report: dict) -> Fraction:
    return Fraction(report["summary"]["mean_true_probability"]["exact"])


def test_the_job_page_offers_the_whole_result_and_its_audit(admin, original_csv, anonymized_csv):
    job = upload(admin, original_csv.encode(), anonymized_csv.encode()).location
    page = admin.get(job).get_data(as_text=True)
    assert 'href="/admin/jobs/1/result.json"' in page
    assert 'href="/admin/risk/belief/links?job=1"' in page
    download = admin.get("/admin/jobs/1/result.json")
    assert download.mimetype == "application/json"
    assert "attachment" in download.headers["Content-Disposition"]
    result = download.get_json()
    assert len(result["exact"]["links"]) == 25  # the page's top 25 ...
    assert len(result["exact"]["all_links"]["rows"]) == 46  # ... the download has all 46
    # The downloaded file, uploaded to "Audit a linkage output": all 46 audited, and the mean
    # probability of the truth is RL (13/46), not 13/25.
    audited = admin.post(
        "/admin/risk/belief/links",
        data={"file": (io.BytesIO(download.data), "job_1.json")},
        content_type="multipart/form-data",
    ).get_data(as_text=True)
    assert "46 records" in audited and "mean probability of the truth 13/46" in audited
    # "Audit it" from the job page reads the job itself.
    direct = admin.get("/admin/risk/belief/links?job=1").get_data(as_text=True)
    assert "46 records" in direct and "13/46" in direct and 'id="audited-job"' in direct


def test_the_api_job_object_is_audited_whole(admin, app, people, original_csv, anonymized_csv):
    upload(admin, original_csv.encode(), anonymized_csv.encode())
    with app.app_context():
        headers = {"Authorization": f"Bearer {make_token(db.session.get(User, people['ada']))}"}
    job = admin.get("/api/v1/admin/jobs/1", headers=headers).get_json()
    report = admin.post("/api/v1/analytics/belief/links", json=job, headers=headers).get_json()
    assert report["summary"]["records"] == 46 and mean(report) == Fraction(13, 46)
    assert sum(r["true_probability"]["exact"] == "0" for r in report["records"]) == 33


def test_a_result_with_only_its_top_links_is_refused_not_audited_in_part():
    partial = {"exact": {"n_anonymized": 46, "links": [{"ties": 1, "probability": "1"}] * 25}}
    with pytest.raises(BeliefRequestError, match="lists only 25 of its 46 anonymized"):
        audit_upload(json.dumps(partial))


def test_a_trajectory_linked_to_no_original_counts_with_probability_zero():
    whole = {
        "exact": {
            "all_links": {
                "columns": ["anonymized_id", "ties", "probability", "distance"],
                "rows": [[1, 2, "1/2", 3.0], [2, 0, "0", None], [3, 1, "0", 9.0]],
            }
        }
    }
    report = audit_upload(json.dumps(whole))
    assert [r["true_probability"]["exact"] for r in report["records"]] == ["1/2", "0", "0"]
    assert mean(report) == Fraction(1, 6)
    bad = {"exact": {"all_links": {"columns": ["ties", "probability"], "rows": [[0, "1"]]}}}
    with pytest.raises(BeliefRequestError, match="ties >= 0 and a probability"):
        audit_upload(json.dumps(bad))


def test_the_cli_writes_the_whole_result_and_audits_it(runner, tmp_path):
    from tests.cli.test_trajectory_cli import FILES

    path = tmp_path / "rl.json"
    result = runner.invoke(args=["analytics", "rl", *FILES, "--result", str(path)])
    assert result.exit_code == 0, result.output
    # Progress: whole lines on stderr (a tenth of the work each), never carriage returns.
    lines = result.stderr.splitlines()
    assert "\r" not in result.stderr and len(lines) == 11
    assert (lines[0], lines[-1]) == ("0/46 chunks (0%)", "46/46 chunks (100%)")
    audit = runner.invoke(args=["analytics", "links", str(path), "--json"])
    assert audit.exit_code == 0, audit.output
    report = json.loads(audit.output)
    assert report["summary"]["records"] == 46 and mean(report) == Fraction(13, 46)
