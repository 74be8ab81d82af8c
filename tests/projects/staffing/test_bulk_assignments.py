"""Assignments written in bulk give what the per-pair path gave: the same pairs, positions and
characters meter (its total counted per record by the database, not per pair in Python)."""

from __future__ import annotations

import pytest
from sqlalchemy import select

from app.extensions import db
from app.models import Assignment, AssignmentPair, Pair
from app.projects.lifecycle import create_project
from app.projects.staffing import assign_pairs, assign_workers
from app.projects.staffing.characters import record_characters
from app.projects.staffing.workers import share
from app.review.services import Context, pair_states
from tests.factories import make_user

# Missing values, a category, non-ASCII letters (characters, not bytes), ids of two lengths.
RECORDS = [
    {
        "id": "r1",
        "num": "12345",
        "first": "josé",
        "last": "núñez",
        "dob": "01/02/1980",
        "sex": "female",
    },
    {
        "id": "r2",
        "num": "12354",
        "first": "jose",
        "last": None,
        "dob": "01/02/1981",
        "sex": "female",
    },
    {"id": "r3", "num": None, "first": "ann", "last": "lee", "dob": None, "sex": None},
    {
        "id": "r4",
        "num": "123456",
        "first": "anne",
        "last": "li",
        "dob": "12/31/1999",
        "sex": "male",
    },
    {
        "id": "r5",
        "num": "9",
        "first": None,
        "last": "smith-jones",
        "dob": "03/04/1950",
        "sex": "male",
    },
]
PAIRS = [["r1", "r2"], ["r1", "r3"], ["r2", "r4"], ["r3", "r4"], ["r4", "r5"], ["r1", "r5"],
         ["r2", "r5"]]  # fmt: skip


def _project(owner):
    spec = {
        "name": "bulk", "kind": "dedupe", "records": RECORDS, "pairs": PAIRS,
        "attributes": [
            {"name": "num", "type": "id"}, {"name": "first", "type": "string"},
            {"name": "last", "type": "string"}, {"name": "dob", "type": "date"},
            {"name": "sex", "type": "category"},
        ],
    }  # fmt: skip
    project = create_project(spec, owner)
    db.session.commit()
    return project


def _per_pair_characters(assignment: Assignment) -> int:
    """The characters meter's total as the per-pair path computed it (every cell rendered)."""
    pairs = [link.pair for link in assignment.pairs]
    return sum(s.characters()[1] for s in pair_states(Context.of(assignment), pairs))


def test_record_characters_count_every_identifying_cell(app):
    with app.app_context():
        project = _project(make_user("max", "manager"))
        ids, chars = record_characters(project)
        assert ids.tolist() == sorted(ids.tolist()) and len(ids) == len(RECORDS)
        # num + first + last + dob (8) + sex (a category: 1); missing counts 0; é, ñ are one
        # character each.
        assert sorted(chars.tolist()) == sorted([5 + 4 + 5 + 8 + 1, 5 + 4 + 0 + 8 + 1,
                                                       0 + 3 + 3 + 0 + 0, 6 + 4 + 2 + 8 + 1,
                                                       1 + 0 + 11 + 8 + 1])  # fmt: skip


def test_record_characters_of_some_records_are_those_of_all(app):
    with app.app_context():
        project = _project(make_user("max", "manager"))
        ids, chars = record_characters(project)
        some, counted = record_characters(project, only=ids[[3, 1]])
        assert some.tolist() == ids[[1, 3]].tolist()  # in id order
        assert counted.tolist() == chars[[1, 3]].tolist()


@pytest.mark.parametrize(("workers", "coders"), [(1, 1), (2, 1), (3, 2)])
def test_shares_positions_and_characters_equal_the_per_pair_path(app, workers, coders):
    with app.app_context():
        project = _project(make_user("max", "manager"))
        names = [f"w{i}" for i in range(workers)]
        for name in names:
            make_user(name)
        made = assign_workers(project, dict.fromkeys(names, 0.5), coders=coders)
        db.session.commit()
        ids = db.session.scalars(select(Pair.id).order_by(Pair.id)).all()
        expected = share(ids, workers, coders)
        for assignment, pair_ids in zip(made, expected, strict=True):
            db.session.expire_all()
            links = db.session.execute(
                select(AssignmentPair.pair_id, AssignmentPair.position)
                .where(AssignmentPair.assignment_id == assignment.id)
                .order_by(AssignmentPair.position)
            ).all()
            assert links == [(p, i) for i, p in enumerate(pair_ids)]
            assert [link.pair_id for link in assignment.pairs] == pair_ids
            assert assignment.chars_total == _per_pair_characters(assignment) > 0
            assert (assignment.chars_disclosed, assignment.kapr_exact) == (0, "0")


def test_an_explicit_list_keeps_its_order_and_counts_its_characters(app):
    with app.app_context():
        project = _project(make_user("max", "manager"))
        worker = make_user("wes")
        ids = db.session.scalars(select(Pair.id).order_by(Pair.id)).all()
        chosen = [ids[4], ids[0], ids[4], ids[2]]  # a repeat is kept once
        assignment = assign_pairs(project, worker, 1.0, chosen)
        db.session.commit()
        assert [link.pair_id for link in assignment.pairs] == [ids[4], ids[0], ids[2]]
        assert assignment.chars_total == _per_pair_characters(assignment)


def test_start_partial_counts_the_same_total_and_charges_the_start(app):
    with app.app_context():
        project = _project(make_user("max", "manager"))
        plain, opened = make_user("wes"), make_user("wen")
        a = assign_pairs(project, plain, 1.0)
        b = assign_pairs(project, opened, 1.0, start_partial=["first", "last"])
        db.session.commit()
        assert a.chars_total == b.chars_total == _per_pair_characters(a)
        assert b.chars_disclosed > 0 and b.kapr > 0


def test_the_pair_cap_bounds_what_is_assigned_for_review_not_what_is_stored(app):
    from app.projects.blocking import pairing
    from app.projects.staffing.assignments import AssignmentError

    assert pairing.DEFAULT_MAX_PAIRS >= 10_000_000  # millions of pairs may be stored
    with app.app_context():
        app.config["REVIEW_MAX_PAIRS"] = 3
        project = _project(make_user("max", "manager"))
        wes, wen = make_user("wes"), make_user("wen")
        assert db.session.query(Pair).count() == len(PAIRS) > 3  # stored beyond the cap
        with pytest.raises(AssignmentError, match="7 pairs is more than the 3 one assignment"):
            assign_workers(project, {"wes": 0.5, "wen": 0.5})
        db.session.rollback()
        with pytest.raises(AssignmentError, match="more than the 3"):
            assign_pairs(project, wes, 0.5)
        db.session.rollback()
        ids = db.session.scalars(select(Pair.id).order_by(Pair.id)).all()
        assert len(assign_pairs(project, wen, 0.5, ids[:3]).pairs) == 3  # a list within it
