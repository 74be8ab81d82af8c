"""A linkage team's day with FEBRL4: Splink 5 scores it, the app triages the predictions,
reviewers settle the band and a calibration sample through the JSON API, and the labels go
back into Splink under the source names it used."""

from __future__ import annotations

import csv
import io

import numpy as np
import pyarrow.parquet as pq
import pytest

from tests import febrl as data
from tests.factories import make_token, make_user

TRIAGE = "lower=0.05&upper=0.95&calibration=50&seed=1"


def _tokens(app):
    with app.app_context():
        manager, worker = make_user("max", "manager"), make_user("wes", "worker")
        return (
            {"Authorization": f"Bearer {make_token(manager)}"},
            {"Authorization": f"Bearer {make_token(worker)}"},
        )


def _expected_counts(path) -> dict[str, int]:
    table = pq.read_table(path, columns=["match_probability"])
    p = table.column("match_probability").to_numpy()
    return {"above": int((p > 0.95).sum()), "inside": int(((p >= 0.05) & (p <= 0.95)).sum()),
            "below": int((p < 0.05).sum())}  # fmt: skip


def _csv(text: str) -> list[dict]:
    return list(csv.DictReader(io.StringIO(text)))


@pytest.mark.slow
def test_splink_predictions_triaged_reviewed_and_labels_back_into_splink(app, client, febrl):
    manager, worker = _tokens(app)
    made = client.post("/api/v1/projects", json=data.project_spec(febrl), headers=manager)
    assert made.status_code == 201, made.get_json()
    project = made.get_json()["id"]
    upload = {**manager, "Content-Type": "application/octet-stream"}
    url = f"/api/v1/projects/{project}/predictions?{TRIAGE}"

    preview = client.post(f"{url}&preview=true", data=febrl.csv.read_bytes(), headers=upload)
    assert preview.status_code == 200, preview.get_json()
    counts = preview.get_json()["counts"]
    expected = _expected_counts(febrl.parquet)
    assert {k: counts[k] for k in expected} == expected
    assert counts["calibration"] == 50 and counts["present"] == 0
    assert preview.get_json()["sources"] == {"A": "febrl_a", "B": "febrl_b"}
    listed = client.get(f"/api/v1/projects/{project}/pairs", headers=manager).get_json()
    assert listed["total"] == 0  # a preview writes nothing

    imported = client.post(url, data=febrl.csv.read_bytes(), headers=upload)
    assert imported.status_code == 201, imported.get_json()
    round_ = imported.get_json()
    assert round_["round"] == 1 and round_["counts"] == {**counts, "present": 0}
    review = counts["review"]
    assert review == counts["inside"] + counts["calibration"] - counts["calibration_inside"]
    assert counts["model_match"] + counts["model_non_match"] + review == counts["pairs"]

    pairs = {}
    for purpose in ("band", "calibration"):
        found = client.get(
            f"/api/v1/projects/{project}/pairs?purpose={purpose}&per_page=1000", headers=manager
        ).get_json()
        pairs.update({p["id"]: p for p in found["pairs"]})
    assert len(pairs) == review
    same = {i: (p["a"], p["b"]) in febrl.truth for i, p in pairs.items()}

    assigned = client.post(
        f"/api/v1/projects/{project}/assignments",
        json={"worker": "wes", "budget": 1.0, "pairs": "all"},
        headers=manager,
    )
    assert assigned.status_code == 201, assigned.get_json()
    assert data.answer_all(client, worker, assigned.get_json()["id"], same) == review

    export = f"/api/v1/projects/{project}/export"
    linkage = _csv(client.get(f"{export}/linkage", headers=manager).get_data(as_text=True))
    matched = {(r["unique_id_l"], r["unique_id_r"]) for r in linkage if r["decision"] == "match"}
    tp = len(matched & febrl.truth)
    assert tp / len(matched) >= 0.998 and tp / len(febrl.truth) >= 0.998
    by = {r["decided_by"] for r in linkage}
    assert by == {"model", "reviewers"}
    reviewed = [r for r in linkage if r["decided_by"] == "reviewers"]
    assert len(reviewed) == review
    assert {r["source_dataset_l"] for r in linkage} == {"febrl_a"}

    labels = client.get(f"{export}/splink?purpose=calibration", headers=manager)
    assert labels.headers["X-Labels-Purpose"] == "calibration"
    rows = _csv(labels.get_data(as_text=True))
    assert len(rows) == 50 and {r["source_dataset_l"] for r in rows} == {"febrl_a"}
    matches = client.get(f"{export}/splink_matches", headers=manager)
    assert matches.headers["X-Labels-Purpose"] == "calibration"  # the default
    _back_into_splink(labels.get_data(as_text=True), matches.get_data(as_text=True), rows, febrl)


def _back_into_splink(labels_text: str, matches_text: str, rows: list[dict], febrl) -> None:
    import pandas as pd

    linker, db_api = febrl.linker, febrl.db_api
    if linker is None:  # the predictions came from an earlier process's cache
        linker, db_api, _ = data.predict(data.splink_frames())
    predictions = pd.read_parquet(
        febrl.parquet, columns=["unique_id_l", "unique_id_r", "match_weight"]
    )
    labels = db_api.register(
        pd.read_csv(io.StringIO(labels_text), dtype={"unique_id_l": str, "unique_id_r": str})
    )
    table = linker.evaluation.accuracy_analysis_from_labels_table(
        labels, output_type="table"
    ).as_pandas_dataframe()
    truth = np.array([(r["unique_id_l"], r["unique_id_r"]) in febrl.truth for r in rows])
    assert (np.array([r["clerical_match_score"] for r in rows]) == np.where(truth, "1", "0")).all()
    assert set(table["p"]) == {int(truth.sum())} and set(table["n"]) == {int((~truth).sum())}
    scored = predictions.set_index(["unique_id_l", "unique_id_r"])["match_weight"]
    weights = np.array([scored[r["unique_id_l"], r["unique_id_r"]] for r in rows])
    rounded = np.round(weights / 0.1) * 0.1  # Splink's truth thresholds: weights to 0.1
    for threshold, tp, fn, fp, tn in table[["truth_threshold", "tp", "fn", "fp", "tn"]].itertuples(
        index=False
    ):
        above = rounded >= threshold - 1e-6
        assert (tp, fn, fp, tn) == (
            int((above & truth).sum()), int((~above & truth).sum()),
            int((above & ~truth).sum()), int((~above & ~truth).sum()),
        ), threshold  # fmt: skip
    matches = db_api.register(
        pd.read_csv(io.StringIO(matches_text), dtype=str).astype({"clerical_match_score": float})
    )
    linker.training.estimate_m_from_pairwise_labels(matches)  # changes the session's model
    model = linker.misc.save_model_to_json()
    given = next(c for c in model["comparisons"] if c["output_column_name"] == "given_name")
    exact = next(level for level in given["comparison_levels"] if "m_probability" in level)
    assert exact["m_probability"] > 0.5  # not collapsed as band-only labels make it
