"""The characters meter's total, counted by the database and numpy instead of per pair.

A pair's total characters (:meth:`app.review.grid.state.PairState.characters`) is the sum of
its two records' characters: per identifying attribute, the normalised value's length (a
category counts 1, a missing value 0). A record's count is taken out of its JSON by the
database (``json_extract`` / ``->>``), once per record, and a pair's is two lookups, so an
assignment of a million pairs is counted in seconds instead of aligning every pair.
"""

from __future__ import annotations

import numpy as np
from sqlalchemy import case, func, select

from app.bulk import int_table
from app.core.disclosure import AttributeType
from app.extensions import db
from app.models import Pair, Project, Record

__all__ = ["pair_characters", "pairs_of", "record_characters"]

CHUNK = 10_000  # bounded IN lists (SQLite's variable limit)


def record_characters(
    project: Project, only: np.ndarray | None = None
) -> tuple[np.ndarray, np.ndarray]:
    """The project's record ids (sorted; with ``only``, those of them) and each record's
    characters, as int64 arrays."""
    terms = []
    for attribute in project.identifying:
        value = Record.values[attribute.name].as_string()
        if AttributeType(attribute.kind) is AttributeType.CATEGORY:
            terms.append(case((value.is_(None), 0), else_=1))
        else:
            terms.append(func.coalesce(func.length(value), 0))
    total = sum(terms[1:], terms[0]) if terms else 0
    query = select(Record.id, total).where(Record.project_id == project.id).order_by(Record.id)
    if only is None:
        table = int_table(query, 2)
    else:
        parts = [
            int_table(query.where(Record.id.in_(only[start : start + CHUNK].tolist())), 2)
            for start in range(0, len(only), CHUNK)
        ]
        table = np.concatenate(parts) if parts else np.zeros((0, 2), dtype=np.int64)
    return table[:, 0], table[:, 1]


def pair_characters(project: Project, record_a: np.ndarray, record_b: np.ndarray) -> np.ndarray:
    """Each pair's total characters, for pairs given by their two records' ids.

    Every record of the project is counted in one pass, unless the pairs name fewer than
    a fifth of them (a list of pairs): then those records only, by id.
    """
    if not len(record_a):
        return np.zeros(0, dtype=np.int64)
    named = np.unique(np.concatenate([record_a, record_b]))
    n_records = db.session.scalar(
        select(func.count()).select_from(Record).where(Record.project_id == project.id)
    )
    ids, chars = record_characters(project, named if 5 * len(named) < n_records else None)
    return chars[np.searchsorted(ids, record_a)] + chars[np.searchsorted(ids, record_b)]


def pairs_of(project: Project, pair_ids: list[int]) -> tuple[np.ndarray, np.ndarray]:
    """The two records' ids of each of ``pair_ids`` (of ``project``), in that order."""
    found: dict[int, tuple[int, int]] = {}
    for start in range(0, len(pair_ids), CHUNK):
        query = select(Pair.id, Pair.record_a_id, Pair.record_b_id).where(
            Pair.project_id == project.id, Pair.id.in_(pair_ids[start : start + CHUNK])
        )
        found.update((p, (a, b)) for p, a, b in db.session.execute(query))
    table = np.asarray([found[p] for p in pair_ids], dtype=np.int64).reshape(-1, 2)
    return table[:, 0], table[:, 1]
