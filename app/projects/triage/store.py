"""Write a batch of pairs in bulk: Core inserts in chunks, never one ORM object per pair."""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from sqlalchemy import func, select

from app.bulk import big_cache, write_rows
from app.extensions import db
from app.models import Pair, Project, Round

__all__ = ["CHUNK", "NewPairs", "existing_keys", "insert_pairs", "next_round"]

CHUNK = 10_000


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
    rule: list[str | None] | None = None
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
    rows = db.session.execute(
        select(Pair.record_a_id, Pair.record_b_id).where(Pair.project_id == project_id)
    ).all()
    if not rows:
        return np.zeros(0, dtype=np.int64)
    pairs = np.asarray(rows, dtype=np.int64)
    return np.unique(pair_keys(pairs[:, 0], pairs[:, 1], dedupe))


def pair_keys(a: np.ndarray, b: np.ndarray, dedupe: bool) -> np.ndarray:
    """One int64 per pair; a deduplication pair is the same pair either way round."""
    a, b = np.asarray(a, dtype=np.int64), np.asarray(b, dtype=np.int64)
    if dedupe:
        a, b = np.minimum(a, b), np.maximum(a, b)
    return (a << 32) | b


def _float(value: float) -> float | None:
    """A score as stored: none for a missing one, and for an infinite weight (a probability
    of exactly 0 or 1 given without its weight)."""
    return value if math.isfinite(value) else None


_COLUMNS = (
    "project_id", "record_a_id", "record_b_id", "external_id", "rule", "match_probability",
    "match_weight", "purpose", "round", "model_decision",
)  # fmt: skip


def insert_pairs(project_id: int, pairs: NewPairs, round_number: int, default_purpose: str) -> int:
    """Insert ``pairs`` as round ``round_number`` (:func:`app.bulk.write_rows`, in chunks of
    :data:`CHUNK` so no more than a chunk of row tuples is held); flush; return the count."""
    db.session.flush()
    n = len(pairs)
    order = pairs.order if pairs.order is not None else np.arange(n)
    rule = pairs.rule if pairs.rule is not None else [None] * n
    purpose = pairs.purpose if pairs.purpose is not None else [default_purpose] * n
    decision = pairs.decision if pairs.decision is not None else [None] * n
    with big_cache():
        _write(project_id, pairs, round_number, order, rule, purpose, decision)
    return len(order)


def _write(project_id, pairs, round_number, order, rule, purpose, decision) -> None:
    for start in range(0, len(order), CHUNK):
        take = order[start : start + CHUNK]
        columns = zip(
            pairs.a[take].tolist(), pairs.b[take].tolist(),
            [rule[i] for i in take.tolist()],
            map(_float, pairs.probability[take].tolist()),
            map(_float, pairs.weight[take].tolist()),
            [purpose[i] for i in take.tolist()],
            [decision[i] for i in take.tolist()],
            strict=True,
        )  # fmt: skip
        rows = [
            (project_id, a, b, "", r, p, w, u, round_number, d) for a, b, r, p, w, u, d in columns
        ]
        write_rows(Pair, _COLUMNS, rows)
