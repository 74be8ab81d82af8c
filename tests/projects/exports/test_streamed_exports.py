"""The streamed label exports (``splink``, ``splink_matches``, ``linkage``) read the database a
chunk at a time and write what the per-pair path (every pair's outcome in Python) wrote."""

from __future__ import annotations

import io

import pytest
from sqlalchemy import select

from app.extensions import db
from app.models import CLEARED, Pair, User
from app.projects.blocking.pairing import create_pairs
from app.projects.conflicts.queue import resolve_conflict
from app.projects.exports import linkage, peers, service
from app.projects.exports.service import export_chunks, export_csv
from app.projects.progress.outcomes import outcomes
from app.projects.staffing.workers import assign_workers
from tests.factories import PASSWORD, make_user
from tests.projects.conftest import decide, linked_project


def _per_pair(project, kind: str, purpose=None) -> str:
    """The splink export as written before issue 24: from every pair's outcome."""
    out = io.StringIO()
    settled = service._settled(project, outcomes(project.id), purpose)
    peers.write_splink_labels(out, settled, matches_only=kind == "splink_matches")
    return out.getvalue()


def _reviewed(app, people):
    project = linked_project(people)
    create_pairs(project, [["last_name"]])
    make_user("wil")
    made = assign_workers(project, {"wes": 0.5, "wen": 0.5, "wil": 0.5}, coders=2)
    db.session.commit()
    ids = db.session.scalars(select(Pair.id).order_by(Pair.id)).all()
    answers = ["same", "different", "unsure", "same", CLEARED, "same", "different"]
    for i, pair_id in enumerate(ids[:20]):
        for k, assignment in enumerate(made):
            if any(link.pair_id == pair_id for link in assignment.pairs):
                decide(assignment, pair_id, answers[(i * 2 + k) % len(answers)])
    db.session.commit()
    manager = db.session.get(User, people["max"])
    for pair_id in [p for p, o in outcomes(project.id).items() if o.open][:2]:
        resolve_conflict(project, pair_id, "different", "low", by=manager)
        db.session.commit()
    return project


@pytest.mark.parametrize("kind", ["splink", "splink_matches"])
def test_streamed_splink_labels_equal_the_per_pair_path(app, people, monkeypatch, kind):
    monkeypatch.setattr(linkage, "STREAM_ROWS", 3)  # several chunks
    with app.app_context():
        project = _reviewed(app, people)
        expected = _per_pair(project, kind)
        assert expected.count("\n") > 4  # a header and more rows than one chunk
        chunks = list(export_chunks(project, kind))
        assert len(chunks) > 2 and "".join(chunks) == expected == export_csv(project, kind)


def test_streamed_linkage_equals_the_whole_file(app, people, monkeypatch):
    with app.app_context():
        project = _reviewed(app, people)
        whole = export_csv(project, "linkage")
        monkeypatch.setattr(linkage, "STREAM_ROWS", 2)
        chunks = list(export_chunks(project, "linkage"))
        assert len(chunks) > 2 and "".join(chunks) == whole
        assert whole.count("\n") == 1 + len(list(linkage.final_pairs(project)))


def test_the_download_is_streamed_and_refusals_come_before_it(app, client, people):
    with app.app_context():
        project = _reviewed(app, people)
        pid, expected = project.id, _per_pair(project, "splink")
    client.post("/login", data={"username": "max", "password": PASSWORD})
    answer = client.get(f"/projects/{pid}/export/splink")
    assert answer.status_code == 200 and answer.is_streamed
    assert answer.get_data(as_text=True) == expected
    assert client.get(f"/projects/{pid}/export/legacy").status_code == 404
