"""The fast import of scored pairs stores what the row-by-row path stored: the reviewed pairs
in review order, the model's pairs (their order free) by decision and record id; every score,
purpose, decision and rule as given (SQLite's tuples and PostgreSQL's Arrow-made ``COPY`` text
alike)."""

from __future__ import annotations

import math
import sqlite3

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from sqlalchemy import select

from app.bulk import write_columns, write_rows
from app.extensions import db
from app.models import Pair, Project, Record, Source, User
from app.projects.lifecycle import create_project
from app.projects.reading.predictions import ScoredPairs
from app.projects.triage import TriageSettings, add_scored_round
from app.projects.triage.job import count_pairs
from app.projects.triage.plan import triage
from tests.factories import make_user

N = 40
RULES = ["0", "a\tb", "back\\slash", "new\nline", None, "cr\rx", "plain"]


def _spec() -> dict:
    def records(side: str) -> list[dict]:
        return [{"id": f"{side}{i}", "name": f"Name {i}", "dob": "01/02/1980"} for i in range(N)]

    return {
        "name": "fast",
        "kind": "link",
        "attributes": [{"name": "name", "type": "string"}, {"name": "dob", "type": "date"}],
        "records_a": records("a"),
        "records_b": records("b"),
    }


def _scored(seed: int = 5) -> ScoredPairs:
    rng = np.random.default_rng(seed)
    cells = rng.permutation(N * N)[:600]
    probability = rng.random(len(cells))
    probability[:3] = [0.0, 1.0, 0.5]  # infinite weights are stored as none
    with np.errstate(divide="ignore"):
        weight = np.log2(probability) - np.log2(1.0 - probability)
    rules = [RULES[i % len(RULES)] for i in range(len(cells))]
    return ScoredPairs(
        [f"a{c // N}" for c in cells], [f"b{c % N}" for c in cells], probability, weight,
        match_key=rules,
    )  # fmt: skip


def _oracle(project: Project, scored: ScoredPairs, settings: TriageSettings) -> list[tuple]:
    """The rows the row-by-row path wrote, in its order (the model's pairs in file order)."""
    ours = {
        (label, external): rid
        for label, external, rid in db.session.execute(
            select(Source.label, Record.external_id, Record.id)
            .join(Record, Record.source_id == Source.id)
            .where(Source.project_id == project.id)
        )
    }
    triaged = triage(scored.match_probability, scored.match_weight, settings)

    def score(value: float):
        return value if math.isfinite(value) else None

    id_l, id_r, keys = (c.to_pylist() for c in (scored.id_l, scored.id_r, scored.match_key))
    return [
        (ours["A", id_l[i]], ours["B", id_r[i]], keys[i],
         score(scored.match_probability[i]), score(scored.match_weight[i]),
         triaged.purpose[i], triaged.decision[i])
        for i in triaged.order.tolist()
    ]  # fmt: skip


def test_stored_pairs_are_the_row_by_row_paths(app):
    settings = TriageSettings(lower=0.3, upper=0.6, calibration=25, seed=4)
    with app.app_context():
        by = make_user("max", "manager")
        project = create_project(_spec(), by)
        db.session.flush()
        scored = _scored()
        expected = _oracle(project, scored, settings)
        made = add_scored_round(project, scored, settings, by)
        db.session.commit()
        stored = db.session.execute(
            select(Pair.record_a_id, Pair.record_b_id, Pair.rule, Pair.match_probability,
                   Pair.match_weight, Pair.purpose, Pair.model_decision, Pair.external_id,
                   Pair.round)
            .where(Pair.project_id == project.id)
            .order_by(Pair.id)
        ).all()  # fmt: skip
    assert {tuple(row[7:]) for row in stored} == {("", made.number)}
    stored = [tuple(row[:7]) for row in stored]
    review = made.counts["review"]
    assert 0 < review < len(expected) == len(stored) == 600
    assert stored[:review] == expected[:review]  # the reviewed pairs: same ids order
    model = stored[review:]
    assert sorted(model) == sorted(expected[review:])  # the model's: the same pairs...
    by_record = sorted(model, key=lambda r: (r[6] == "match", r[0], r[1]))
    assert model == by_record  # ...by decision, then record


def test_columns_are_written_as_rows_are(app):
    """``write_columns`` (the fast path) stores what ``write_rows`` stores, value for value."""
    names = ("project_id", "record_a_id", "record_b_id", "external_id", "rule",
             "match_probability", "match_weight", "purpose", "round", "model_decision")  # fmt: skip
    with app.app_context():
        project = create_project(_spec(), make_user("max", "manager"))
        db.session.flush()
        ids = db.session.scalars(select(Record.id).order_by(Record.id)).all()
        n = len(RULES)
        a, b = np.array(ids[:n]), np.array(ids[N : N + n])
        p = np.array([0.1, np.nan, 1 / 3, np.inf, 1e-300, 0.30000000000000004, -0.0])
        decision = np.array(["match", None, "non_match", None, None, "match", None], object)
        rows = [
            (project.id, int(x), int(y), "", r, v if math.isfinite(v) else None, None, "band", 1, d)
            for x, y, r, v, d in zip(a, b, RULES, p, decision, strict=True)
        ]
        write_rows(Pair, names, rows)
        values = (project.id, b, a, "", RULES, p, None, "band", 2, decision)
        columns = dict(zip(names, values, strict=True))
        write_columns(Pair, columns, n)
        query = select(*(getattr(Pair, c) for c in names[1:])).order_by(Pair.id)
        first = db.session.execute(query.where(Pair.round == 1)).all()
        second = db.session.execute(query.where(Pair.round == 2)).all()
    flip = [(r[1], r[0], *r[2:7], 1, r[8]) for r in second]
    assert flip == [tuple(r) for r in first]


def test_pairs_are_counted_without_reading_the_file(tmp_path):
    csv = tmp_path / "p.csv"
    csv.write_text("unique_id_l,unique_id_r,match_probability\n" + "a,b,0.5\n" * 7)
    parquet = tmp_path / "p.parquet"
    pq.write_table(pa.table({"unique_id_l": ["a"] * 5, "unique_id_r": ["b"] * 5}), parquet)
    assert (count_pairs(csv), count_pairs(parquet)) == (7, 5)


@pytest.fixture
def manager(app):
    with app.app_context():
        return make_user("max", "manager").id


def test_a_second_round_skips_present_pairs_and_keeps_its_order(app, manager):
    settings = TriageSettings(lower=0.3, upper=0.6)
    with app.app_context():
        by = db.session.get(User, manager)
        project = create_project(_spec(), by)
        add_scored_round(project, _scored(5), settings, by)
        again = add_scored_round(project, _scored(6), settings, by)
        db.session.commit()
        model = db.session.execute(
            select(Pair.model_decision == "match", Pair.record_a_id, Pair.record_b_id)
            .where(Pair.round == again.number, Pair.purpose == "model")
            .order_by(Pair.id)
        ).all()
    assert again.counts["present"] > 0
    assert [tuple(r) for r in model] == sorted(tuple(r) for r in model)


def test_a_value_for_every_row_is_stored_as_given(app):
    """Shared values (SQLite: literals of the statement) keep quotes and NULLs."""
    with app.app_context():
        project = create_project(_spec(), make_user("max", "manager"))
        db.session.flush()
        ids = db.session.scalars(select(Record.id).order_by(Record.id)).all()
        columns = {"project_id": project.id, "record_a_id": np.array(ids[:3]),
                   "record_b_id": ids[N], "external_id": np.array(["x", "y", "z"], object),
                   "rule": "it's; --", "block": None, "match_probability": 0.25,
                   "purpose": "band", "round": np.int64(3)}  # fmt: skip
        write_columns(Pair, columns, 3)
        rows = db.session.execute(
            select(Pair.record_b_id, Pair.rule, Pair.block, Pair.match_probability, Pair.round)
        ).all()
    assert [tuple(r) for r in rows] == [(ids[N], "it's; --", None, 0.25, 3)] * 3


@pytest.mark.parametrize("per, limit", [(3, None), (1000, 9), (1, None)])
def test_rows_span_statements_as_one_insert_would(app, monkeypatch, per, limit):
    """SQLite's rows go ``ROWS_PER_STATEMENT`` to a statement (fewer when SQLite's parameter
    limit says so), then one statement of the rest: every row stored once, in order."""
    names = ("project_id", "record_a_id", "record_b_id", "external_id", "rule",
             "match_probability", "purpose", "round", "model_decision")  # fmt: skip
    monkeypatch.setattr("app.bulk.ROWS_PER_STATEMENT", per)
    with app.app_context():
        project = create_project(_spec(), make_user("max", "manager"))
        db.session.flush()
        connection = db.session.connection()
        if connection.dialect.name != "sqlite":
            pytest.skip("PostgreSQL writes by COPY")
        ids = db.session.scalars(select(Record.id).order_by(Record.id)).all()
        n = len(RULES)
        a, b = np.array(ids[:n]), np.array(ids[N : N + n])
        p = np.array([0.1, np.nan, 1 / 3, np.inf, 1e-300, 0.5, -0.0])
        scores = [v if math.isfinite(v) else None for v in p.tolist()]
        rows = [
            (project.id, int(x), int(y), str(i), r, v, "band", 1, None)
            for i, (x, y, r, v) in enumerate(zip(a, b, RULES, scores, strict=True))
        ]
        raw = connection.connection.driver_connection
        before = raw.setlimit(sqlite3.SQLITE_LIMIT_VARIABLE_NUMBER, limit or 32766)
        try:
            write_rows(Pair, names, rows)
            _write_both(project.id, a, b, p, n)
        finally:
            raw.setlimit(sqlite3.SQLITE_LIMIT_VARIABLE_NUMBER, before)
        query = select(*(getattr(Pair, c) for c in names)).order_by(Pair.id)
        first = db.session.execute(query.where(Pair.round == 1)).all()
        second = db.session.execute(query.where(Pair.round == 2)).all()
        third = db.session.execute(query.where(Pair.round == 3)).all()
    assert [tuple(r) for r in first] == rows
    assert [(*r[:3], r[3][1:], *r[4:7], 1, r[8]) for r in second] == rows
    assert [tuple(r)[6:] for r in third] == [("model", 3, "match")]


def _write_both(project_id: int, a, b, p, n: int) -> None:
    """Round 2: the rows of round 1 by columns; round 3: one row of literals only."""
    columns = {"project_id": project_id, "record_a_id": a, "record_b_id": b,
               "external_id": [f"c{i}" for i in range(n)], "rule": RULES,
               "match_probability": p, "purpose": "band", "round": 2,
               "model_decision": None}  # fmt: skip
    write_columns(Pair, columns, n)
    shared = {"project_id": project_id, "record_a_id": int(a[0]), "record_b_id": int(b[0]),
              "external_id": "x", "purpose": "model", "round": 3,
              "model_decision": "match"}  # fmt: skip
    write_columns(Pair, shared, 1)


@pytest.mark.postgres
def test_a_bulk_load_of_pairs_leaves_the_planner_statistics_of_them(app):
    """The import samples the pairs into the planner's statistics in its own transaction
    (``app.bulk.analyze``): a new project's pairs are not planned as a handful of rows until
    autovacuum comes by."""
    with app.app_context():
        by = make_user("max", "manager")
        project = create_project(_spec(), by)
        db.session.flush()
        analyzed = "select reltuples from pg_class where oid = 'pairs'::regclass"
        assert db.session.execute(db.text(analyzed)).scalar() < 0  # never sampled
        add_scored_round(project, _scored(5), TriageSettings(0.2, 0.8), by)
        db.session.commit()
        assert db.session.execute(db.text(analyzed)).scalar() == 600
