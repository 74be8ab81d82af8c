"""Write a batch of pairs in bulk: Core inserts in chunks, never one ORM object per pair."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from sqlalchemy import func, select

from app.bulk import analyze, big_cache, int_table, write_columns
from app.extensions import db
from app.models import Pair, Project, Round

__all__ = ["CHUNK", "NewPairs", "existing_keys", "insert_pairs", "next_round"]

CHUNK = 50_000


@dataclass
class NewPairs:
    """Pairs to store, column by column: record ids, scores (NaN: none) and rule.

    ``purpose`` and ``decision`` hold one entry per pair (or ``None`` for the whole batch:
    ``default_purpose``, no decision); ``order`` is the order to store them in (``None``:
    as given), so that pair ids follow the review order.
    """

    a: np.ndarray
    b: np.ndarray
    probability: np.ndarray
    weight: np.ndarray
    rule: np.ndarray | list[str | None] | None = None
    purpose: np.ndarray | None = None
    decision: np.ndarray | None = None
    order: np.ndarray | None = None

    def __len__(self) -> int:
        return len(self.a)


def next_round(project: Project) -> int:
    """The number of the project's next round: one past every pair's and round row's."""
    pairs = db.session.scalar(select(func.max(Pair.round)).where(Pair.project_id == project.id))
    rounds = db.session.scalar(select(func.max(Round.number)).where(Round.project_id == project.id))
    return max(pairs or 0, rounds or 0) + 1


def existing_keys(project_id: int, dedupe: bool) -> np.ndarray:
    """The project's pairs as sorted int64 keys ``a·2^32 + b`` (``min, max`` when deduping)."""
    query = select(Pair.record_a_id, Pair.record_b_id).where(Pair.project_id == project_id)
    pairs = int_table(query, 2)
    if not len(pairs):
        return np.zeros(0, dtype=np.int64)
    # a sort and a look at neighbours: np.unique takes ~60× longer on millions of keys
    keys = np.sort(pair_keys(pairs[:, 0], pairs[:, 1], dedupe))
    return keys[np.concatenate(([True], keys[1:] != keys[:-1]))]


def pair_keys(a: np.ndarray, b: np.ndarray, dedupe: bool) -> np.ndarray:
    """One int64 per pair; a deduplication pair is the same pair either way round."""
    a, b = np.asarray(a, dtype=np.int64), np.asarray(b, dtype=np.int64)
    if dedupe:
        a, b = np.minimum(a, b), np.maximum(a, b)
    return (a << 32) | b


def insert_pairs(
    project_id: int, pairs: NewPairs, round_number: int, default_purpose: str, progress=None
) -> int:
    """Insert ``pairs`` as round ``round_number`` (:func:`app.bulk.write_columns`, in chunks of
    :data:`CHUNK` so no more than a chunk of rows is held); flush; return the count.

    A score that is missing or infinite (a probability of exactly 0 or 1 given without its
    weight) is stored as none. ``progress(written, total)`` is called after each chunk."""
    db.session.flush()
    n = len(pairs)
    order = pairs.order if pairs.order is not None else np.arange(n)
    with big_cache():
        for start in range(0, len(order), CHUNK):
            take = order[start : start + CHUNK]
            columns = {
                "project_id": project_id,
                "record_a_id": pairs.a[take],
                "record_b_id": pairs.b[take],
                "external_id": "",
                "rule": _taken(pairs.rule, take, None),
                "match_probability": pairs.probability[take],
                "match_weight": pairs.weight[take],
                "purpose": _taken(pairs.purpose, take, default_purpose),
                "round": round_number,
                "model_decision": _taken(pairs.decision, take, None),
            }
            write_columns(Pair, columns, len(take))
            if progress is not None:
                progress(start + len(take), len(order))
    analyze(Pair)
    return len(order)


def _taken(values, take: np.ndarray, default):
    """The chunk's entries of a per-pair column (``default`` for every pair when ``None``)."""
    if values is None:
        return default
    if isinstance(values, np.ndarray):
        chunk = values[take]
        if chunk.dtype == object and len(chunk) and (chunk == chunk[0]).all():
            return chunk[0]  # one value for the chunk (the model's pairs): written once
        return chunk
    return [values[i] for i in take.tolist()]
