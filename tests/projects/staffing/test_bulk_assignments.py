"""Assignments written in bulk give what the per-pair path gave: the same pairs, positions and
characters meter (its total summed from each record's stored count, not per pair in Python),
and the stored counts are what the database counts from the values (the path before them)."""

from __future__ import annotations

import numpy as np
import pytest
from sqlalchemy import select

from app.extensions import db
from app.models import Assignment, AssignmentPair, Pair, Project, ProjectAttribute, Record, Source
from app.projects.lifecycle import bulk, create_project
from app.projects.staffing import assign_pairs, assign_workers
from app.projects.staffing.characters import (
    count_record_characters,
    lookup,
    pair_characters,
    record_characters,
)
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


def test_stored_characters_are_what_the_database_counts_from_the_values(app):
    with app.app_context():
        project = _project(make_user("max", "manager"))
        ids, chars = record_characters(project)
        counted_ids, counted = count_record_characters(project)
        assert ids.tolist() == counted_ids.tolist() and chars.tolist() == counted.tolist()


ATTRIBUTES = [("name", "string"), ("sex", "category"), ("dob", "date"), ("note", None)]


@pytest.mark.parametrize("writer", ["insert_records", "insert_columns"])
def test_every_bulk_writer_stores_the_count(app, writer):
    """Both ways records are stored (a project's spec or pair file, a CSV import) count the
    identifying attributes only: a category 1, missing or absent 0, characters not bytes."""
    with app.app_context():
        owner = make_user("max", "manager")
        project = Project(name="p", kind="dedupe", owner_id=owner.id)
        project.attributes = [
            ProjectAttribute(position=i, name=n, kind=k or "string", identifying=k is not None)
            for i, (n, k) in enumerate(ATTRIBUTES)
        ]
        db.session.add(project)
        db.session.flush()
        source = Source(project_id=project.id, label="A", record_count=0)
        db.session.add(source)
        db.session.flush()
        names = ["ñúñez", None, "ann", "jo😀"]
        sexes = ["f", None, "male", "m"]
        dobs = ["01021980", "12311999", None, "01011950"]
        ids = [f"r{i}" for i in range(len(names))]
        if writer == "insert_columns":
            shown = {"name": names, "sex": sexes, "dob": dobs}
            bulk.insert_columns(project.id, source.id, ids, shown, None)
        else:
            rows = [
                {"name": n, "sex": s, "dob": d} for n, s, d in zip(names, sexes, dobs, strict=True)
            ]
            rows[2] = {"name": "ann", "sex": "male"}  # an absent key counts as missing
            bulk.insert_records(project.id, source.id, ids, rows, None)
        db.session.flush()
        stored = db.session.scalars(select(Record.characters).order_by(Record.position)).all()
        assert stored == [5 + 1 + 8, 0 + 0 + 8, 3 + 1 + 0, 3 + 1 + 8]
        db.session.expire(project, ["attributes"])
        some = record_characters(project)[1][:3].tolist()  # no emoji: SQLite's JSON may differ
        assert some == count_record_characters(project)[1][:3].tolist() == stored[:3]


def test_pair_characters_by_a_dense_table_or_a_search_agree():
    ids = np.array([3, 5, 9, 4_000_000_000], dtype=np.int64)  # sparse: searched
    values = np.array([1, 2, 3, 4], dtype=np.int64)
    assert lookup(ids, values, np.array([9, 3, 4_000_000_000])).tolist() == [3, 1, 4]
    assert lookup(ids[:3], values[:3], np.array([9, 3, 5, 5])).tolist() == [3, 1, 2, 2]
    assert lookup(ids, values, np.array([], dtype=np.int64)).tolist() == []


def test_pair_characters_of_a_few_pairs_or_all_agree(app):
    with app.app_context():
        project = _project(make_user("max", "manager"))
        pairs = db.session.execute(select(Pair.record_a_id, Pair.record_b_id)).all()
        a, b = (np.array(column, dtype=np.int64) for column in zip(*pairs, strict=True))
        ids, chars = count_record_characters(project)
        expected = (chars[np.searchsorted(ids, a)] + chars[np.searchsorted(ids, b)]).tolist()
        assert pair_characters(project, a, b).tolist() == expected  # every record read
        assert pair_characters(project, a[:1], b[:1]).tolist() == expected[:1]  # by id


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
