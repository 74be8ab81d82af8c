"""Scored pairs in, triaged, as numbered rounds; a new round leaves existing work alone."""

from __future__ import annotations

import numpy as np
import pytest
from sqlalchemy import func, select

from app.extensions import db
from app.models import Assignment, Pair, Round, Source, User
from app.projects.blocking import BlockingRefused
from app.projects.lifecycle import ProjectSpecError, create_project
from app.projects.reading.predictions import ScoredPairs
from app.projects.staffing import AssignmentError, assign_pairs
from app.projects.triage import (
    ScoredPairsError,
    TriageSettings,
    add_blocking_round,
    add_scored_round,
    current_clusters,
    preview_scores,
    reblock_round,
)
from tests.factories import PASSWORD, make_token, make_user

NAMES = ["Ann Lee", "Bob Ray", "Cy Dunn", "Di Fox", "Ed Gale", "Flo Hart"]


def link_spec(pairs=None, triage=None, **extra) -> dict:
    spec = {
        "name": "scored",
        "kind": "link",
        "attributes": [{"name": "name", "type": "string"}, {"name": "dob", "type": "date"}],
        "records_a": [
            {"id": f"a{i}", "name": n, "dob": f"01/0{i + 1}/1980"} for i, n in enumerate(NAMES)
        ],
        "records_b": [
            {"id": f"b{i}", "name": n.lower(), "dob": f"01/0{i + 1}/1980"}
            for i, n in enumerate(NAMES)
        ],
        **extra,
    }
    if pairs is not None:
        spec["pairs"] = pairs
    if triage is not None:
        spec["triage"] = triage
    return spec


def scored_items(n=6) -> list[dict]:
    """Pair i with i (a match) and i with i+1; probabilities across the whole range."""
    items = []
    for i in range(n):
        items.append({"a": f"a{i}", "b": f"b{i}", "match_probability": 0.5 + i / 12.5})
        items.append(
            {"a": f"a{i}", "b": f"b{(i + 1) % n}", "match_weight": -8.0 + i, "match_key": str(i)}
        )
    return items


@pytest.fixture
def manager(app):
    with app.app_context():
        return make_user("max", "manager").id


def _purposes(project_id: int) -> dict[str, int]:
    rows = db.session.execute(
        select(Pair.purpose, func.count())
        .where(Pair.project_id == project_id)
        .group_by(Pair.purpose)
    )
    return dict(rows.all())


def test_a_project_made_with_scored_pairs_and_triage(app, manager):
    with app.app_context():
        owner = db.session.get(User, manager)
        triage = {"lower": 0.05, "upper": 0.95, "calibration": 2, "seed": 3}
        project = create_project(link_spec(scored_items(), triage), owner)
        db.session.commit()
        made = db.session.scalars(select(Round).where(Round.project_id == project.id)).one()
        counts = made.counts
        assert made.number == 1 and made.origin == "scores"
        assert made.triage["lower"] == 0.05 and made.triage["strata"]["drawn"]
        assert counts["pairs"] == 12 and counts["calibration"] == 2 and counts["present"] == 0
        purposes = _purposes(project.id)
        assert purposes.get("calibration") == 2
        assert purposes.get("band", 0) + 2 == counts["review"]
        assert purposes.get("model", 0) == counts["model_match"] + counts["model_non_match"]
        pairs = db.session.scalars(select(Pair).where(Pair.project_id == project.id)).all()
        for pair in pairs:
            p = pair.match_probability
            expected = "match" if p > 0.95 else "non_match" if p < 0.05 else None
            assert pair.model_decision == expected, p
            assert pair.round == 1
        # Reviewed pairs come first, closest to 0.5 first; the model's after them.
        ordered = sorted(pairs, key=lambda p: p.id)
        review = [p for p in ordered if p.purpose != "model"]
        assert ordered[: len(review)] == review
        weights = [abs(p.match_weight) for p in review]
        assert weights == sorted(weights)
        keyed = [p for p in pairs if p.rule is not None]
        assert {p.rule for p in keyed} == {str(i) for i in range(6)}


def test_unscored_and_bad_pairs(app, manager):
    with app.app_context():
        owner = db.session.get(User, manager)
        project = create_project(link_spec([["a0", "b0"], ["a1", "b1"], ["a0", "b0"]]), owner)
        assert _purposes(project.id) == {"blocking": 2}  # the repeat is dropped, as before
        db.session.rollback()
        cases = [
            ([["a0", "zz"]], "pair 1, field 'b': unknown record id"),
            ([{"a": "a0"}], "pair 1: needs record ids 'a' and 'b'"),
            ([{"a": "a0", "b": "b0", "match_probability": 2}], "from 0 to 1"),
            ([["a0", "b0"]], "triage needs a score for every pair"),
        ]
        for pairs, problem in cases:
            triage = {"lower": 0.1, "upper": 0.9} if "triage" in problem else None
            with pytest.raises(ProjectSpecError) as caught:
                create_project(link_spec(pairs, triage), owner)
            assert any(problem in p for p in caught.value.problems), caught.value.problems
            db.session.rollback()
        with pytest.raises(ProjectSpecError, match="'triage' needs scored 'pairs'"):
            create_project(link_spec(None, {"lower": 0.1, "upper": 0.9}), owner)
        db.session.rollback()
        linked = create_project(link_spec(), owner)  # a link project's pairs may come later
        assert _purposes(linked.id) == {}


def _scored(id_l, id_r, source_l=None, source_r=None, p=None):
    p = np.full(len(id_l), 0.5) if p is None else np.asarray(p, float)
    weight = np.log2(p) - np.log2(1 - p)
    return ScoredPairs(list(id_l), list(id_r), p, weight, source_l, source_r)


def test_source_names_are_matched_by_ids_kept_and_written_back(app, manager):
    with app.app_context():
        owner = db.session.get(User, manager)
        project = create_project(link_spec(), owner)
        # Splink puts the smaller name on the left: here B's ("left_b" < "right_a").
        scored = _scored(["b0", "b1"], ["a0", "a2"], ["left_b"] * 2, ["right_a"] * 2)
        settings = TriageSettings(0.1, 0.9)
        preview = preview_scores(project, scored, settings)
        assert preview.datasets == {"A": "right_a", "B": "left_b"}
        assert preview.counts["inside"] == 2 and preview.chart["stacked"] is True
        assert db.session.scalar(select(func.count(Pair.id))) == 0  # a preview writes nothing
        made = add_scored_round(project, scored, settings, owner)
        db.session.commit()
        pairs = db.session.scalars(select(Pair).order_by(Pair.id)).all()
        ids = {p.record_a.external_id: p.record_b.external_id for p in pairs}
        assert ids == {"a0": "b0", "a2": "b1"}  # every pair stored (A, B)
        names = dict(db.session.execute(select(Source.label, Source.dataset)).all())
        assert names == {"A": "right_a", "B": "left_b"} and made.number == 1
        # A second file under the same names; its known pairs are skipped and counted.
        again = _scored(["b0", "b3"], ["a0", "a3"], ["left_b"] * 2, ["right_a"] * 2)
        second = add_scored_round(project, again, settings, owner)
        assert second.number == 2 and second.counts["present"] == 1
        other = _scored(["x"], ["y"], ["dfa"], ["dfb"])
        with pytest.raises(ScoredPairsError, match="none of its record ids"):
            add_scored_round(project, other, settings, owner)


def test_a_side_may_mix_sources_and_the_first_of_a_repeated_pair_is_kept(app, manager):
    with app.app_context():
        owner = db.session.get(User, manager)
        project = create_project(link_spec(), owner)
        # Left ids from A then B (each side looked up per source); the third repeats the first.
        scored = _scored(["a0", "b1", "a0"], ["b0", "a1", "b0"], ["A", "B", "A"], ["B", "A", "B"])
        with pytest.raises(ScoredPairsError, match="row 3: the same pair as an earlier row"):
            add_scored_round(project, scored, None, owner)
        made = add_scored_round(project, scored, None, owner, item="pair")
        assert made.counts["pairs"] == 2
        pairs = db.session.scalars(select(Pair).order_by(Pair.id)).all()
        assert [(p.record_a.external_id, p.record_b.external_id) for p in pairs] == [
            ("a0", "b0"),
            ("a1", "b1"),
        ]


def test_source_names_the_ids_cannot_tell_apart_must_be_given(app, manager):
    with app.app_context():
        owner = db.session.get(User, manager)
        spec = link_spec()
        spec["records_b"] = [{**r, "id": f"a{i}"} for i, r in enumerate(spec["records_b"])]
        project = create_project(spec, owner)
        scored = _scored(["a0"], ["a1"], ["one"], ["two"])
        with pytest.raises(ScoredPairsError, match="name them"):
            add_scored_round(project, scored, None, owner)
        made = add_scored_round(project, scored, None, owner, sources={"A": "two", "B": "one"})
        assert made.counts["pairs"] == 1
        pair = db.session.scalars(select(Pair)).one()
        assert (pair.record_a.external_id, pair.record_b.external_id) == ("a1", "a0")


def test_problems_name_rows(app, manager):
    with app.app_context():
        owner = db.session.get(User, manager)
        project = create_project(link_spec(), owner)
        cases = [
            (_scored(["a0", "SECRET"], ["b0", "b1"], ["A", "A"], ["B", "B"]),
             "row 2, column 'unique_id_l': unknown record id"),
            (_scored(["a0", "a0"], ["b0", "b0"], ["A", "A"], ["B", "B"]),
             "row 2: the same pair as an earlier row"),
            (_scored(["a0"], ["a1"], ["A"], ["A"]), "row 1: both records are from the same source"),
        ]  # fmt: skip
        for scored, problem in cases:
            with pytest.raises(ScoredPairsError) as caught:
                add_scored_round(project, scored, None, owner)
            assert problem in caught.value.problems, caught.value.problems
            assert "SECRET" not in str(caught.value)


def _meters(client, headers, assignment_id):
    page = client.get(f"/api/v1/assignments/{assignment_id}", headers=headers).get_json()
    return page["assignment"], [p["id"] for p in page["pairs"]]


def test_a_round_added_after_assignments_leaves_their_kapr_budget_and_meters(app, client, manager):
    with app.app_context():
        owner = db.session.get(User, manager)
        worker = make_user("wes", "worker")
        project = create_project(link_spec(scored_items(3), {"lower": 0.0, "upper": 1.0}), owner)
        first = assign_pairs(project, worker, 0.6)
        db.session.commit()
        first_id, token = first.id, make_token(worker)
    headers = {"Authorization": f"Bearer {token}"}
    _, pair_ids = _meters(client, headers, first_id)
    for attribute in ("name", "dob"):
        reveal = {"pair_id": pair_ids[0], "row": 0, "attribute": attribute}
        assert (
            client.post(
                f"/api/v1/assignments/{first_id}/reveal", json=reveal, headers=headers
            ).status_code
            == 200
        )
    before, _ = _meters(client, headers, first_id)
    with app.app_context():
        owner, project = db.session.get(User, manager), db.session.get(Assignment, first_id).project
        row = db.session.get(Assignment, first_id)
        stored = (row.kapr_exact, row.budget, row.chars_disclosed, row.chars_total, row.version)
        made = add_scored_round(
            project, _scored(["a3", "a4"], ["b4", "b3"], p=[0.4, 0.6]), None, owner
        )
        db.session.commit()
        assert made.number == 2
        worker = db.session.scalar(select(User).where(User.username == "wes"))
        with pytest.raises(AssignmentError, match="has an assignment in this project"):
            assign_pairs(project, worker, 0.5, round=1)
        second = assign_pairs(project, worker, 0.5)  # the newest round: new work
        db.session.commit()
        assert second.round == 2 and [p.pair.round for p in second.pairs] == [2, 2]
        row = db.session.get(Assignment, first_id)
        assert (
            row.kapr_exact,
            row.budget,
            row.chars_disclosed,
            row.chars_total,
            row.version,
        ) == stored
        second_id = second.id
    after, ids = _meters(client, headers, first_id)
    assert after == before and ids == pair_ids
    fresh, _ = _meters(client, headers, second_id)
    assert fresh["kapr"] == 0 and fresh["budget"] == 0.5
    client.post("/login", data={"username": "wes", "password": PASSWORD})
    home = client.get("/review/").get_data(as_text=True)
    assert "(assignment 2)" in home and "round" not in home.lower()


def test_the_models_pairs_are_never_assigned(app, manager):
    with app.app_context():
        owner = db.session.get(User, manager)
        worker = make_user("wes", "worker")
        project = create_project(link_spec(scored_items(), {"lower": 0.3, "upper": 0.7}), owner)
        model = db.session.scalars(select(Pair.id).where(Pair.purpose == "model")).all()
        band = db.session.scalars(select(Pair.id).where(Pair.purpose == "band")).all()
        assert model and band
        with pytest.raises(AssignmentError, match="the model decided are never assigned"):
            assign_pairs(project, worker, 0.5, [band[0], model[0]])
        made = assign_pairs(project, worker, 0.5)
        assert sorted(p.pair_id for p in made.pairs) == sorted(band)


def test_more_blocking_and_iterative_blocking_rounds(app, manager):
    from app.models import ConflictResolution, DecisionEvent

    with app.app_context():
        owner = db.session.get(User, manager)
        worker = make_user("wes", "worker")
        project = create_project(link_spec([["a0", "b0"], ["a1", "b1"]]), owner)
        assignment = assign_pairs(project, worker, 0.5)
        db.session.commit()
        for link in assignment.pairs:
            answer = {"decision": "same", "confidence": "high", "user_id": worker.id}
            db.session.add(
                DecisionEvent(assignment_id=assignment.id, pair_id=link.pair_id, **answer)
            )
        db.session.commit()
        clusters = current_clusters(project)
        assert len(set(clusters.values())) == 12 - 2
        # Iterative blocking: one representative per cluster and source; within a cluster
        # nothing new, the known pairs skipped.
        made = reblock_round(project, [["dob"]], owner)
        assert made.number == 2 and made.counts["pairs"] == 4 and made.counts["skipped"] == 2
        new = db.session.scalars(select(Pair).where(Pair.round == 2)).all()
        assert {(p.record_a.external_id, p.record_b.external_id) for p in new} == {
            (f"a{i}", f"b{i}") for i in range(2, 6)
        }
        assert {p.purpose for p in new} == {"blocking"} and {p.rule for p in new} == {"dob exact"}
        more = add_blocking_round(project, [[["dob", "year"]]], owner)  # every A with every B
        assert more.number == 3 and more.counts == {"pairs": 30, "review": 30, "skipped": 6}
        with pytest.raises(BlockingRefused, match="no pair the project does not have"):
            add_blocking_round(project, [["dob"]], owner)
        assert db.session.scalar(select(func.count(ConflictResolution.id))) == 0
