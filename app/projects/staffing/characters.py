"""The characters meter's total, from each record's stored count instead of per pair.

A pair's total characters (:meth:`app.review.grid.state.PairState.characters`) is the sum of
its two records' characters: per identifying attribute, the normalised value's length (a
category counts 1, a missing value 0). Each record's count is stored with it when it is
stored (``records.characters``, :mod:`app.projects.lifecycle.bulk`), so a pair's is two
array lookups and an assignment of a million pairs reads one integer per record.
:func:`count_record_characters` counts the same from the records' JSON in the database (the
path before the stored count), kept as the tests' oracle.
"""

from __future__ import annotations

import numpy as np
from sqlalchemy import case, func, select

from app.bulk import int_table
from app.core.disclosure import AttributeType
from app.extensions import db
from app.models import Pair, Project, Record

__all__ = ["count_record_characters", "pair_characters", "pairs_of", "record_characters"]

CHUNK = 10_000  # bounded IN lists (SQLite's variable limit)


def record_characters(
    project: Project, only: np.ndarray | None = None
) -> tuple[np.ndarray, np.ndarray]:
    """The project's record ids (sorted; with ``only``, those of them) and each record's
    stored characters, as int64 arrays."""
    return _by_record(select(Record.id, Record.characters), project, only)


def count_record_characters(
    project: Project, only: np.ndarray | None = None
) -> tuple[np.ndarray, np.ndarray]:
    """:func:`record_characters` counted from the records' values by the database
    (``json_extract`` / ``->>`` of every identifying attribute): the oracle."""
    terms = []
    for attribute in project.identifying:
        value = Record.values[attribute.name].as_string()
        if AttributeType(attribute.kind) is AttributeType.CATEGORY:
            terms.append(case((value.is_(None), 0), else_=1))
        else:
            terms.append(func.coalesce(func.length(value), 0))
    total = sum(terms[1:], terms[0]) if terms else 0
    return _by_record(select(Record.id, total), project, only)


def _by_record(query, project: Project, only: np.ndarray | None) -> tuple[np.ndarray, np.ndarray]:
    query = query.where(Record.project_id == project.id).order_by(Record.id)
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

    Every record's count is read in one pass, unless the pairs name fewer than a fifth of
    the project's records (a list of pairs): then those records only, by id.
    """
    if not len(record_a):
        return np.zeros(0, dtype=np.int64)
    n_records = db.session.scalar(
        select(func.count()).select_from(Record).where(Record.project_id == project.id)
    )
    only = None
    if 10 * len(record_a) < n_records:  # a few pairs: fewer than 20 % of the records named
        only = np.unique(np.concatenate([record_a, record_b]))
    ids, chars = record_characters(project, only)
    return lookup(ids, chars, record_a) + lookup(ids, chars, record_b)


def lookup(ids: np.ndarray, values: np.ndarray, wanted: np.ndarray) -> np.ndarray:
    """``values`` of ``wanted`` ids, for ``ids`` sorted and holding every wanted one.

    A project's record ids are (nearly) one run, so a dense table indexed by id minus the
    smallest replaces a binary search per id (a million pairs: 0.3 s to 0.02 s).
    """
    if not len(wanted):
        return np.zeros(0, dtype=values.dtype)
    low, span = int(ids[0]), int(ids[-1]) - int(ids[0]) + 1
    if span > 4 * len(ids) + 1_000_000:  # sparse ids: a table would waste memory
        return values[np.searchsorted(ids, wanted)]
    dense = np.zeros(span, dtype=values.dtype)
    dense[ids - low] = values
    return dense[wanted - low]


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
