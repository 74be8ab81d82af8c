"""Exports of a triaged project: the model's decisions beside people's, each with who made
it, and labels for the linker chosen by purpose, scored 1/0 or by confidence."""

from __future__ import annotations

import csv
import io

from sqlalchemy import select

from app.extensions import db
from app.models import DecisionEvent, Pair
from app.projects.lifecycle import create_project
from app.projects.staffing import assign_pairs
from tests.factories import make_token, make_user
from tests.projects.triage.test_rounds import link_spec, scored_items

CONFIDENCE = {("same", "high"): "1", ("same", "medium"): "0.8", ("same", "low"): "0.6",
              ("different", "low"): "0.4", ("different", "medium"): "0.2",
              ("different", "high"): "0"}  # fmt: skip


def _rows(response) -> list[dict]:
    assert response.status_code == 200, response.get_data(as_text=True)
    return list(csv.DictReader(io.StringIO(response.get_data(as_text=True))))


def _answered(app, triage):
    """A triaged FEBRL-like project, every reviewed pair answered (same when i == j)."""
    with app.app_context():
        owner, worker = make_user("max", "manager"), make_user("wes", "worker")
        project = create_project(link_spec(scored_items(), triage), owner)
        assignment = assign_pairs(project, worker, 1.0)
        db.session.commit()
        levels = ["high", "medium", "low"]
        for k, link in enumerate(assignment.pairs):
            pair = link.pair
            same = pair.record_a.external_id[1:] == pair.record_b.external_id[1:]
            db.session.add(DecisionEvent(
                assignment_id=assignment.id, pair_id=pair.id, user_id=worker.id,
                decision="same" if same else "different", confidence=levels[k % 3],
            ))  # fmt: skip
        db.session.commit()
        return project.id, {"Authorization": f"Bearer {make_token(owner)}"}


def test_labels_for_splink_by_purpose_and_confidence(app, client):
    project, headers = _answered(app, {"lower": 0.3, "upper": 0.9, "calibration": 3, "seed": 2})
    url = f"/api/v1/projects/{project}/export"
    every = _rows(client.get(f"{url}/splink", headers=headers))
    band = _rows(client.get(f"{url}/splink?purpose=band", headers=headers))
    calibration = client.get(f"{url}/splink?purpose=calibration&score=confidence", headers=headers)
    assert calibration.headers["X-Labels-Purpose"] == "calibration"
    scored = _rows(calibration)
    assert len(scored) == 3 and len(every) == len(band) + 3
    labels = _rows(client.get(f"{url}/labels", headers=headers))
    by_pair = {(r["unique_id_l"], r["unique_id_r"]): r for r in labels}
    for row in scored:
        label = by_pair[row["unique_id_l"], row["unique_id_r"]]
        assert row["clerical_match_score"] == CONFIDENCE[label["decision"], label["confidence"]]
        assert label["purpose"] == "calibration" and label["decided_by"] == "reviewers"
        assert label["round"] == "1" and float(label["match_weight"]) == float(
            label["match_weight"]
        )
    assert {r["clerical_match_score"] for r in band} <= {"0", "1"}
    matches = client.get(f"{url}/splink_matches", headers=headers)
    assert matches.headers["X-Labels-Purpose"] == "calibration"  # the default when drawn
    assert {r["clerical_match_score"] for r in _rows(matches)} <= {"1"}
    assert client.get(f"{url}/splink?purpose=sideways", headers=headers).status_code == 400
    assert client.get(f"{url}/splink?score=stars", headers=headers).status_code == 400


def test_without_a_calibration_sample_the_matches_export_says_so(app, client):
    project, headers = _answered(app, {"lower": 0.3, "upper": 0.9})
    matches = client.get(f"/api/v1/projects/{project}/export/splink_matches", headers=headers)
    assert matches.headers["X-Labels-Purpose"] == "all"
    assert "no calibration sample" in matches.headers["X-Labels-Note"]


def test_final_linkage_combines_the_models_and_peoples_decisions(app, client):
    project, headers = _answered(app, {"lower": 0.3, "upper": 0.9})
    url = f"/api/v1/projects/{project}/export"
    linkage = _rows(client.get(f"{url}/linkage", headers=headers))
    with app.app_context():
        pairs = db.session.scalars(select(Pair).where(Pair.project_id == project)).all()
        model = [p for p in pairs if p.purpose == "model"]
    assert len(linkage) == len(pairs)  # every pair decided, by the model or by people
    by = {r["decided_by"] for r in linkage}
    assert by == {"model", "reviewers"}
    assert sum(r["decided_by"] == "model" for r in linkage) == len(model)
    truth = {(r["unique_id_l"][1:] == r["unique_id_r"][1:]) for r in linkage
             if r["decided_by"] == "reviewers" and r["decision"] == "match"}  # fmt: skip
    assert truth == {True}
    clusters = _rows(client.get(f"{url}/clusters", headers=headers))
    assert {c["linked_by"] for c in clusters} <= {"", "model", "reviewers", "model+reviewers"}
    linked = [c for c in clusters if c["linked_by"]]
    assert linked and all(c["source_dataset"] in ("A", "B") for c in clusters)
