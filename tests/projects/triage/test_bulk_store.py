"""Pairs written in bulk: the big page cache of a SQLite bulk write is the connection's only
while it writes, and the pairs are stored as given."""

from __future__ import annotations

import numpy as np
from sqlalchemy import select

from app.bulk import BULK_CACHE_KIB, big_cache
from app.extensions import db
from app.models import Pair
from app.projects.triage.store import NewPairs, insert_pairs
from tests.factories import make_user, paper_project


def _cache_size() -> int:
    return db.session.connection().exec_driver_sql("PRAGMA cache_size").scalar()


def test_the_big_cache_is_given_back(app):
    with app.app_context():
        if db.engine.dialect.name != "sqlite":
            with big_cache():  # a no-op elsewhere
                pass
            return
        before = _cache_size()
        with big_cache():
            assert _cache_size() == -BULK_CACHE_KIB
        assert _cache_size() == before != -BULK_CACHE_KIB


def test_inserted_pairs_are_the_given_ones_in_the_given_order(app):
    with app.app_context():
        project = paper_project(make_user("max", "manager"))
        pairs = db.session.scalars(select(Pair)).all()
        ids = sorted({p.record_a_id for p in pairs} | {p.record_b_id for p in pairs})
        # The stored pairs run from the earlier record to the later: these are new rows.
        a, b = np.array([ids[2], ids[3]]), np.array([ids[0], ids[1]])
        new = NewPairs(a, b, np.array([0.5, np.nan]), np.array([0.0, np.inf]),
                       order=np.array([1, 0]))  # fmt: skip
        assert insert_pairs(project.id, new, 2, "band") == 2
        stored = db.session.execute(
            select(Pair.record_a_id, Pair.record_b_id, Pair.match_probability, Pair.match_weight)
            .where(Pair.round == 2)
            .order_by(Pair.id)
        ).all()
        assert stored == [(ids[3], ids[1], None, None), (ids[2], ids[0], 0.5, 0.0)]
