"""The database's final decisions agree with the reviewers' consensus, and the pairs listing
pages and filters them without reading the project in Python."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from sqlalchemy import select, text

from app.extensions import db
from app.models import BY_ID, ConflictResolution, DecisionEvent, Pair, User, reviewed_pairs
from app.projects.lifecycle import create_project
from app.projects.progress.finals import STATUSES, final_columns, with_records
from app.projects.progress.outcomes import outcomes
from app.projects.progress.pairs import ListingError, PairFilter, list_pairs
from app.projects.staffing import assign_pairs
from tests.factories import make_user
from tests.projects.triage.test_rounds import link_spec, scored_items

ANSWER = st.sampled_from([None, "same", "different", "unsure", "cleared"])


def _project(suffix: str, triage=None):
    owner = make_user("m" + suffix, "manager")
    workers = [make_user(f"w{k}" + suffix, "worker") for k in range(3)]
    project = create_project(link_spec(scored_items(), triage), owner)
    assignments = [assign_pairs(project, w, 1.0) for w in workers]
    db.session.commit()
    return owner, project, assignments


@settings(max_examples=15, deadline=None, suppress_health_check=list(HealthCheck))
@given(
    answers=st.lists(st.lists(ANSWER, min_size=3, max_size=3), min_size=1, max_size=12),
    resolved=st.lists(st.sampled_from([None, "same", "different"]), max_size=12),
)
def test_sql_final_decisions_equal_the_python_consensus(app, answers, resolved):
    with app.app_context():
        suffix = str(db.session.execute(db.text("select count(*) from users")).scalar())
        owner, project, assignments = _project(suffix)
        pair_ids = [link.pair_id for link in assignments[0].pairs]
        for pair_id, given_answers in zip(pair_ids, answers, strict=False):
            for assignment, answer in zip(assignments, given_answers, strict=True):
                for decision in ("same", answer) if answer == "cleared" else (answer,):
                    if decision is not None:
                        db.session.add(DecisionEvent(
                            assignment_id=assignment.id, pair_id=pair_id,
                            user_id=assignment.worker_id, decision=decision, confidence="low",
                        ))  # fmt: skip
        for pair_id, decision in zip(pair_ids, resolved, strict=False):
            if decision is not None:
                db.session.add(ConflictResolution(pair_id=pair_id, resolved_by=owner.id,
                                                  decision=decision))  # fmt: skip
        db.session.commit()
        finals = final_columns(project.id)
        rows = db.session.execute(
            finals.query(project.id, Pair.id, finals.human, finals.decided_by)
        ).all()
        python = outcomes(project.id)
        for pair_id, human, decided_by in rows:
            outcome = python[pair_id]
            assert human == outcome.final, (pair_id, outcome)
            expected = None if outcome.final is None else (
                "manager" if outcome.resolution else "reviewers"
            )  # fmt: skip
            assert decided_by == expected
        listed = list_pairs(project, PairFilter(status="conflict"), per_page=1000)
        assert {p["id"] for p in listed.pairs} == {o.pair_id for o in python.values() if o.open}


def test_listing_filters_pages_and_provenance(app):
    with app.app_context():
        owner, project, (first, second, _) = _project(
            "x", {"lower": 0.3, "upper": 0.8, "calibration": 1}
        )
        total = db.session.scalar(select(db.func.count(Pair.id)))
        model = list_pairs(project, PairFilter(purpose="model"), per_page=1000)
        assert model.total and {p["decided_by"] for p in model.pairs} == {"model"}
        assert {p["decision"] for p in model.pairs} <= {"match", "non_match"}
        assert all(p["decision"] == p["model_decision"] for p in model.pairs)
        band = list_pairs(project, PairFilter(purpose="band"), per_page=1000).pairs
        assert {p["decision"] for p in band} == {None}
        pair = band[0]
        for k, assignment in enumerate((first, second)):
            db.session.add(
                DecisionEvent(
                    assignment_id=assignment.id, pair_id=pair["id"],
                    user_id=assignment.worker_id, decision="different",
                )
            )  # fmt: skip
            db.session.commit()
            (one,) = list_pairs(project, PairFilter(pair=pair["id"])).pairs
            # Triple-coded: one answer of three settles nothing, two of three do.
            settled = ("non_match", "reviewers") if k else (None, None)
            assert (one["decision"], one["decided_by"], one["answers"]) == (*settled, k + 1)
        assert set(one) >= {"a", "b", "purpose", "round", "match_probability", "match_weight",
                            "match_key", "source_a", "source_b"}  # fmt: skip
        # Offset pages and keyset pages walk the same pairs in id order.
        by_offset, page = [], 1
        while chunk := list_pairs(project, page=page, per_page=5).pairs:
            by_offset += [p["id"] for p in chunk]
            page += 1
        by_key, after = [], None
        while True:
            found = list_pairs(project, per_page=5, after=after)
            by_key += [p["id"] for p in found.pairs]
            if found.next_after is None:
                break
            after = found.next_after
        assert by_offset == by_key == sorted(by_key) and len(by_key) == total
        for status in STATUSES:
            counted = list_pairs(project, PairFilter(status=status), per_page=1000)
            assert counted.total == len(counted.pairs)
        unassigned = list_pairs(project, PairFilter(status="unassigned")).total
        assert unassigned == 0  # every pair to review is assigned; the model's never are
        assert list_pairs(project, PairFilter(round=2)).total == 0
        for bad in ({"purpose": "x"}, {"status": "open"}):
            with pytest.raises(ListingError):
                PairFilter(**bad)
        with pytest.raises(ListingError):
            list_pairs(project, per_page=5000)
        assert db.session.get(User, owner.id)


def test_the_pairs_to_review_are_read_through_their_own_index(app):
    """On SQLite, the queries of the pairs to review in pair order (the label exports) read
    ``ix_pairs_project_round_purpose``: with ``ORDER BY id`` SQLite walked every pair of the
    project by ``ix_pairs_project_id``, ten million model pairs for a million to review.
    PostgreSQL chooses by its statistics."""
    with app.app_context():
        if db.engine.dialect.name != "sqlite":
            pytest.skip("SQLite's plan")
        _, project, _ = _project("plan")
        finals = final_columns(project.id)
        queries = [
            with_records(finals.reviewed(project.id, finals.human)),
            select(Pair.id).where(*reviewed_pairs(project.id, ["band"])).order_by(BY_ID),
        ]
        for query in queries:
            sql = query.compile(db.engine, compile_kwargs={"literal_binds": True})
            plan = db.session.execute(text(f"EXPLAIN QUERY PLAN {sql}")).all()
            steps = " | ".join(row[3] for row in plan)
            assert "INDEX ix_pairs_project_round_purpose (project_id=? AND round=?" in steps, steps
            assert "ix_pairs_project_id " not in steps + " ", steps
