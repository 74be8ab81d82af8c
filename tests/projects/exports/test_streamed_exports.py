"""The streamed exports read the database a chunk at a time and write, byte for byte, what the
whole-body path (every pair's outcome in memory, then the text) writes: every kind and option,
on a reviewed project with conflicts and resolutions, a triaged one with model decisions and
a calibration sample, and empty ones."""

from __future__ import annotations

import io

import pytest
from sqlalchemy import select

from app.extensions import db
from app.models import CLEARED, Pair, User
from app.projects.blocking.pairing import create_pairs
from app.projects.conflicts.queue import resolve_conflict
from app.projects.exports import KINDS, STREAMED, linkage, peers, streams
from app.projects.exports.service import (
    ExportOptions,
    ExportRefused,
    export_chunks,
    export_csv,
    whole_csv,
)
from app.projects.exports.whole import settled_of
from app.projects.lifecycle import create_project
from app.projects.progress.outcomes import outcomes
from app.projects.staffing import assign_pairs
from app.projects.staffing.workers import assign_workers
from tests.factories import PASSWORD, make_user
from tests.projects.conftest import decide, linked_project
from tests.projects.triage.test_rounds import link_spec, scored_items

OPTIONS = [
    ExportOptions(purpose, score)
    for purpose in (None, "band", "calibration", "review")
    for score in ("binary", "confidence")
]


def _per_pair(project, kind: str, purpose=None) -> str:
    """The splink export as written before issue 24: from every pair's outcome."""
    out = io.StringIO()
    by_pair = outcomes(project.id)
    settled = (settled_of(p, by_pair[p.id]) for p in linkage.reviewed_pairs(project, purpose))
    peers.write_splink_labels(out, settled, matches_only=kind == "splink_matches")
    return out.getvalue()


def _reviewed(app, people):
    """MINDFIRL's dev files (vault columns), three workers two to a pair, answers of every
    kind (clears too), and two conflicts resolved by the manager."""
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
                level = ("high", "medium", "low")[(i + k) % 3]
                # Every other pair's two coders give the same answer (agreed or not settled).
                given = answers[(i * 2 + (k if i % 2 else 0)) % len(answers)]
                decide(assignment, pair_id, given, level)
    db.session.commit()
    manager = db.session.get(User, people["max"])
    for pair_id in [p for p, o in outcomes(project.id).items() if o.open][:2]:
        resolve_conflict(project, pair_id, "different", "low", by=manager)
        db.session.commit()
    return project


def _triaged(app, people):
    """Scored pairs triaged: the model decides some, a band and a calibration sample go to
    two workers, who agree on every other pair and not on the others (conflicts); the
    manager resolves one."""
    manager = db.session.get(User, people["max"])
    triage = {"lower": 0.3, "upper": 0.8, "calibration": 3, "seed": 2}
    project = create_project(link_spec(scored_items(), triage), manager)
    first = assign_pairs(project, db.session.get(User, people["wes"]), 1.0)
    second = assign_pairs(project, db.session.get(User, people["wen"]), 1.0)
    db.session.commit()
    for k, link in enumerate(first.pairs):
        pair = link.pair
        same = pair.record_a.external_id[1:] == pair.record_b.external_id[1:]
        decide(first, pair.id, "same" if same else "different", ("high", "medium", "low")[k % 3])
        decide(second, pair.id, "same" if same != bool(k % 2) else "different", "medium")
    db.session.commit()
    for pair_id in [p for p, o in outcomes(project.id).items() if o.open][:1]:
        resolve_conflict(project, pair_id, "same", "high", by=manager)
        db.session.commit()
    return project


def _empty(app, people):
    """Records, no pair."""
    return linked_project(people)


@pytest.fixture
def small_chunks(monkeypatch):
    monkeypatch.setattr(linkage, "STREAM_ROWS", 3)
    monkeypatch.setattr(streams, "EDGE_ROWS", 2)


@pytest.mark.parametrize("make", [_reviewed, _triaged, _empty])
def test_every_streamed_export_equals_the_whole_body(app, people, small_chunks, make):
    with app.app_context():
        project = make(app, people)
        compared = 0
        for kind in KINDS:
            for options in OPTIONS:
                try:
                    whole = whole_csv(project, kind, options)
                except ExportRefused:
                    continue
                chunks = export_chunks(project, kind, options)
                assert isinstance(chunks, list) == (kind not in STREAMED)
                chunks = list(chunks)
                assert "".join(chunks) == whole == export_csv(project, kind, options), (
                    kind,
                    options,
                )
                lines = whole.count("\n")
                if kind in STREAMED and lines > 7:
                    assert len(chunks) > 2  # a million rows would be as many pieces
                compared += 1
        assert compared >= 30


def test_the_reviewed_world_has_what_the_comparison_needs(app, people, small_chunks):
    with app.app_context():
        reviewed = _reviewed(app, people)
        text = export_csv(reviewed, "linked")
        assert text.startswith("cluster_id,linked_by,info1") and text.count("\n") > 10
        labels = export_csv(reviewed, "labels")
        assert ",manager," in labels and ",reviewers," in labels and ",,,," in labels


def test_the_triaged_world_has_what_the_comparison_needs(app, people, small_chunks):
    with app.app_context():
        triaged = _triaged(app, people)
        clusters = export_csv(triaged, "clusters")
        kinds = {line.rsplit(",", 1)[1] for line in clusters.splitlines()[1:]}
        assert {"model", "reviewers", "manager"} <= {k for by in kinds for k in by.split("+")}
        assert "calibration" in export_csv(triaged, "labels")


@pytest.mark.parametrize("kind", ["splink", "splink_matches"])
def test_streamed_splink_labels_equal_the_per_pair_path(app, people, monkeypatch, kind):
    monkeypatch.setattr(linkage, "STREAM_ROWS", 3)  # several chunks
    with app.app_context():
        project = _reviewed(app, people)
        expected = _per_pair(project, kind)
        assert expected.count("\n") > 4  # a header and more rows than one chunk
        chunks = list(export_chunks(project, kind))
        assert len(chunks) > 2 and "".join(chunks) == expected == export_csv(project, kind)


def test_kept_components_are_computed_once_and_write_the_same(app, people, monkeypatch):
    """The close-out's final exports (:func:`streams.components_kept`): ``clusters`` and
    ``linked`` read one computation of the final components, and write what they write
    alone."""
    with app.app_context():
        project = _triaged(app, people)
        alone = {kind: export_csv(project, kind) for kind in ("clusters", "linked")}
        computed = []
        components_of = streams._components_of
        monkeypatch.setattr(
            streams, "_components_of", lambda pid: computed.append(pid) or components_of(pid)
        )
        with streams.components_kept():
            kept = {kind: export_csv(project, kind) for kind in ("clusters", "linked")}
        assert kept == alone and computed == [project.id]
        export_csv(project, "clusters")  # outside the block: computed again
        assert computed == [project.id, project.id]


def test_a_record_missing_from_the_vault_stops_the_linked_export(app, people, small_chunks):
    from app.models import Record, VaultRecord

    with app.app_context():
        project = _reviewed(app, people)
        last = db.session.scalars(
            select(Record.pseudonym).where(Record.project_id == project.id).order_by(Record.id)
        ).all()[-1]
        db.session.execute(VaultRecord.__table__.delete().where(VaultRecord.pseudonym == last))
        db.session.commit()
        for path in (export_csv, whole_csv):
            with pytest.raises(ValueError, match="no sensitive values for record"):
                path(project, "linked")


def test_the_download_is_streamed_and_refusals_come_before_it(app, client, people):
    with app.app_context():
        project = _reviewed(app, people)
        pid, expected = project.id, _per_pair(project, "splink")
        labels = whole_csv(project, "labels")
    client.post("/login", data={"username": "max", "password": PASSWORD})
    answer = client.get(f"/projects/{pid}/export/splink")
    assert answer.status_code == 200 and answer.is_streamed
    assert answer.get_data(as_text=True) == expected
    answer = client.get(f"/projects/{pid}/export/labels")
    assert answer.is_streamed and answer.get_data(as_text=True) == labels
    assert answer.headers["Content-Disposition"].startswith("attachment; filename=")
    answer = client.get(f"/projects/{pid}/export/recordlinkage")
    assert answer.status_code == 200 and answer.get_data(as_text=True).startswith("{")
    assert client.get(f"/projects/{pid}/export/legacy").status_code == 404
