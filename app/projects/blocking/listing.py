"""List the candidate pairs of rules as arrays, with numpy: millions of pairs in seconds.

:func:`pair_arrays` gives, per rule in order, the index arrays ``(left, right)`` of the pairs
that rule produces first: left codes joined with right codes by sorting (no Python loop
over pairs), a deduplication's pairs kept when ``left < right`` (the earlier record on the
left, as Splink orders by id), and the pairs an earlier rule already produced removed by
comparing that rule's codes for each pair. Within a rule the pairs are sorted by left,
then right index.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence

import numpy as np

from app.projects.blocking.codes import Rule, rule_codes

__all__ = ["pair_arrays"]


def pair_arrays(
    records_a: Sequence[Mapping],
    records_b: Sequence[Mapping] | None,
    rules: Sequence[Rule],
    codes: list[np.ndarray] | None = None,
) -> Iterator[tuple[int, np.ndarray, np.ndarray]]:
    """``(rule index, left indices into A, right indices into B (or A))`` per rule;
    ``codes`` (:func:`rule_codes` of A then B) saves computing them again."""
    dedupe = records_b is None
    n_a = len(records_a)
    values = [*records_a, *(records_b if records_b is not None else ())]
    n = len(values)
    codes = rule_codes(rules, values) if codes is None else codes
    sides = [(c, c) if c.size == n else (c[:n], c[n:]) for c in codes]
    for r, (left, right) in enumerate(sides):
        lc, rc = (left, right) if dedupe else (left[:n_a], right[n_a:])
        li, ri = _join(lc, rc)
        if dedupe:
            keep = li < ri
            li, ri = li[keep], ri[keep]
        for q in range(r):  # the pairs an earlier rule produced are that rule's
            ql, qr = sides[q]
            ql, qr = (ql, qr) if dedupe else (ql[:n_a], qr[n_a:])
            a, b = ql[li], qr[ri]
            keep = (a < 0) | (a != b)
            li, ri = li[keep], ri[keep]
        yield r, li, ri


def _join(left: np.ndarray, right: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Index pairs ``(i, j)`` with ``left[i] == right[j] >= 0``, sorted by ``(i, j)``."""
    size = int(max(left.max(initial=-1), right.max(initial=-1))) + 1
    present = right[right >= 0]
    # Records of the right side grouped by code (stable: ascending index within a code).
    order = np.flatnonzero(right >= 0)[np.argsort(present, kind="stable")]
    per_code = np.bincount(present, minlength=size)
    group_start = np.cumsum(per_code) - per_code
    rows = np.flatnonzero(left >= 0)
    start, counts = group_start[left[rows]], per_code[left[rows]]
    keep = counts > 0
    rows, start, counts = rows[keep], start[keep], counts[keep]
    total = int(counts.sum())
    if not total:
        return np.empty(0, np.int64), np.empty(0, np.int64)
    li = np.repeat(rows, counts)
    # Position of each pair's right record in ``order``: its group's start, then 0, 1, ...
    first = np.cumsum(counts) - counts
    offset = np.arange(total, dtype=np.int64) - np.repeat(first, counts)
    ri = order[np.repeat(start, counts) + offset]
    return li, ri
