"""The scoring page: upload a model, see its weights, train one, score as a job, download."""

from __future__ import annotations

import io
import json

import pyarrow.parquet as pq
import pytest

from app.extensions import db
from app.models import Job
from tests.factories import PASSWORD, make_user
from tests.projects.scoring.conftest import MODEL_FILE

pytestmark = pytest.mark.slow


def _login(client, name):
    client.post("/login", data={"username": name, "password": PASSWORD})
    return client


def _upload(client, base, body: bytes):
    data = {"model": (io.BytesIO(body), "model.json")}
    return client.post(f"{base}/scoring/model", data=data, content_type="multipart/form-data")


def test_upload_see_score_and_download(app, client, febrl):
    base = f"/projects/{febrl}"
    _login(client, "max")
    assert b"No model yet" in client.get(f"{base}/scoring").data
    assert _upload(client, base, MODEL_FILE.read_bytes()).status_code == 302
    page = client.get(f"{base}/scoring").get_data(as_text=True)
    assert "Match weight per comparison level" in page and "prior (λ)" in page
    assert "l.given_name = r.surname AND l.surname = r.given_name" in page
    weights = client.get(f"{base}/scoring/weights.csv").get_data(as_text=True)
    assert weights.splitlines()[0].startswith("Comparison level,Match weight")
    stored = json.loads(client.get(f"{base}/scoring/model.json").data)
    assert stored["comparisons"][0]["output_column_name"] == "given_name"

    response = client.post(f"{base}/scoring/run")
    assert response.status_code == 302
    job_page = client.get(response.headers["Location"]).get_data(as_text=True)
    assert "Status: done" in job_page and "pairs scored on duckdb" in job_page
    with client.get(f"{base}/scoring/predictions.parquet") as parquet:
        assert parquet.status_code == 200
        table = pq.read_table(io.BytesIO(parquet.data))
    assert table.num_rows > 100_000 and "match_probability" in table.column_names


@pytest.mark.parametrize(
    ("body", "message"),
    [
        (b"{not json", "not a JSON file"),
        (json.dumps({"link_type": "link_only", "comparisons": [], "x": 1}).encode(),
         "x: not one of Splink&#39;s settings"),
    ],
)  # fmt: skip
def test_a_refused_upload_lists_its_problems_and_keeps_nothing(app, client, febrl, body, message):
    _login(client, "max")
    response = _upload(client, f"/projects/{febrl}", body)
    assert response.status_code == 400
    assert message in response.get_data(as_text=True)
    assert b"No model yet" in response.data


def test_training_form_problems_and_a_training_job(app, client, febrl):
    base = f"/projects/{febrl}"
    _login(client, "max")
    bad = client.post(f"{base}/scoring/train", data={"rules": "l.surname = r.surname OR 1=1"})
    assert bad.status_code == 400 and b"keys joined by AND" in bad.data
    form = {
        "cmp-0": "jaro_winkler", "cmp-1": "levenshtein", "cmp-2": "exact", "cmp-3": "exact",
        "cmp-4": "none", "tf-1": "on", "rules": 'block_on("surname")',
        "em_rules": 'block_on("date_of_birth")',
        "deterministic_rules": 'block_on("surname", "date_of_birth")',
        "recall": "0.8", "u_pairs": "100000", "seed": "3",
    }  # fmt: skip
    response = client.post(f"{base}/scoring/train", data=form)
    assert response.status_code == 302
    assert "Status: done" in client.get(response.headers["Location"]).get_data(as_text=True)
    page = client.get(f"{base}/scoring").get_data(as_text=True)
    assert "Trained here" in page and "Training " in page
    with app.app_context():
        assert db.session.query(Job).filter_by(kind="scoring-train", status="done").count() == 1


def test_only_the_owner_changes_a_model(app, client, febrl):
    with app.app_context():
        make_user("mia", "manager")
        make_user("wes", "worker")
    _login(client, "wes")
    assert client.get(f"/projects/{febrl}/scoring").status_code == 403
    client.post("/logout")
    _login(client, "mia")
    assert client.get(f"/projects/{febrl}/scoring").status_code == 403
    assert _upload(client, f"/projects/{febrl}", MODEL_FILE.read_bytes()).status_code == 403


def test_settings_the_app_decides_are_noted_on_upload(app, client, febrl):
    _login(client, "max")
    model = json.loads(MODEL_FILE.read_text(encoding="utf-8"))
    model["additional_columns_to_retain"] = ["soc_sec_id"]
    response = _upload(client, f"/projects/{febrl}", json.dumps(model).encode())
    page = client.get(response.headers["Location"]).get_data(as_text=True)
    assert "additional_columns_to_retain: set by the application" in page
