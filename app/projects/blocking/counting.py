"""How many candidate pairs blocking rules make, cheaply, without listing them.

:func:`count_pairs` gives per rule ``Σ nA·nB`` (link) or ``Σ n(n−1)/2`` (dedupe) over key
groups, and the distinct total by inclusion–exclusion over the intersections of rules (an
intersection of rules is again a grouping, on the concatenated keys), computed with numpy on
integer key codes. A cross-attribute rule reads the left and the right record differently,
so each record has a left and a right code (in one code space); a deduplication then counts
the pairs ``i < j`` whose left code of ``i`` is the right code of ``j``. The rules
themselves, and the pairs they list: :mod:`.rules`.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from app.projects.blocking.codes import Rule, combine, rule_codes

__all__ = ["PairCount", "Records", "count_codes", "count_pairs", "rule_pairs"]

Records = Mapping[str, Mapping[str, str | None]]


@dataclass(frozen=True)
class PairCount:
    """Pairs per rule (``per_rule``), pairs first produced by each rule, distinct total."""

    per_rule: list[int]
    new_per_rule: list[int]
    total: int


def count_pairs(
    records_a: Records, records_b: Records | None, rules: Sequence[Rule], codes=None
) -> PairCount:
    """Count candidate pairs per rule and in total without listing them.

    Each non-empty set S of rules has ``|∩S|`` pairs agreeing on all its rules; the pairs
    first produced by rule r are ``Σ (−1)^|S| |∩(S ∪ {r})|`` over S ⊆ {rules before r}.
    ``codes`` (:func:`rule_codes` of A then B) saves computing them again.
    """
    values = [*records_a.values(), *(records_b.values() if records_b is not None else ())]
    codes = rule_codes(rules, values) if codes is None else codes
    return count_codes(codes, len(records_a), len(values), dedupe=records_b is None)


def rule_pairs(codes: Sequence[np.ndarray], n_a: int, n: int, *, dedupe: bool) -> list[int]:
    """The pairs each rule makes on its own (:func:`count_codes`'s ``per_rule``, without the
    intersections): their sum bounds the distinct total from above."""
    return [_count(code, n_a, dedupe=dedupe, n=n) for code in codes]


def count_codes(codes: Sequence[np.ndarray], n_a: int, n: int, *, dedupe: bool) -> PairCount:
    """:func:`count_pairs` from each rule's key codes (:func:`rule_codes`, or any codes
    equal exactly where the keys are) of ``n`` records, the first ``n_a`` of them from A."""
    per_rule, new = [0] * len(codes), [0] * len(codes)

    # Depth-first over sets of rules in increasing order, so each set is visited once, its
    # last rule is its highest, and only one code array per depth is alive.
    def visit(code: np.ndarray | None, size: int, start: int) -> None:
        for r in range(start, len(codes)):
            joint = codes[r] if code is None else combine(code, codes[r])
            count = _count(joint, n_a, dedupe=dedupe, n=n)
            if not count:
                continue  # no pair agrees on this set, so none on any larger one
            if code is None:
                per_rule[r] = count
            new[r] += count if size % 2 == 0 else -count
            visit(_partnered(joint, n_a, dedupe=dedupe, n=n), size + 1, r + 1)

    visit(None, 0, 0)
    return PairCount(per_rule, new, sum(new))


def _count(code: np.ndarray, n_a: int, *, dedupe: bool, n: int) -> int:
    """Pairs agreeing on ``code``: ``Σ n(n−1)/2`` (dedupe) or ``Σ nA·nB`` (link); for left
    and right codes (``2n`` of them), left of A against right of B, or ``i < j`` (dedupe)."""
    size = int(code.max()) + 1 if code.size else 0
    if size <= 0:
        return 0
    left, right = (code, code) if code.size == n else (code[:n], code[n:])
    if dedupe and code.size == n:
        c = _tally(code, size)
        return int((c * (c - 1) // 2).sum())
    if dedupe:
        return _ordered(left, right)
    a, b = left[:n_a], right[n_a:]
    ca = _tally(a, size)
    cb = _tally(b, size)
    return int((ca * cb).sum())


def _tally(code: np.ndarray, size: int) -> np.ndarray:
    """How many records have each code in ``range(size)`` (``-1``, missing, not counted)."""
    return np.bincount(code[code >= 0], minlength=size)


def _partnered(code: np.ndarray, n_a: int, *, dedupe: bool, n: int) -> np.ndarray:
    """``code`` with ``-1`` where no other record shares it (for the sets of rules above
    this one: a record no pair agrees with here is in no pair of a larger set), so their
    codes are computed on fewer records."""
    size = int(code.max()) + 1
    if code.size == n and dedupe:
        sides = [code]
        keep = _tally(code, size) > 1
    else:
        left, right = (code, code) if code.size == n else (code[:n], code[n:])
        sides = [left[:n_a], right[n_a:]] if not dedupe else [left, right]
        keep = np.ones(size, bool)
        for side in sides:
            keep &= _tally(side, size) > 0
    keep = np.r_[keep, False]  # code -1 reads the extra last entry
    return np.where(keep[code], code, -1)


def _ordered(left: np.ndarray, right: np.ndarray) -> int:
    """``#{(i, j): i < j, left[i] == right[j] >= 0}``, by one sort of both sides' codes."""
    index = np.arange(left.size, dtype=np.int64)
    # Only a code on both sides makes a pair (a swapped-names rule: few do).
    size = int(max(left.max(), right.max())) + 1
    both = (_tally(left, size) > 0) & (_tally(right, size) > 0)
    both = np.r_[both, False]  # code -1 (missing) reads the extra last entry: kept out
    keep_l, keep_r = both[left], both[right]
    code = np.concatenate([left[keep_l], right[keep_r]])
    position = np.concatenate([index[keep_l], index[keep_r]])
    # At one position a right entry sorts before the left one: i < j is strict. One sort of
    # a single integer key (code, position, side) instead of a lexsort of three arrays.
    is_left = np.concatenate([np.ones(keep_l.sum(), bool), np.zeros(keep_r.sum(), bool)])
    order = np.argsort((code * left.size + position) * 2 + is_left)
    code, is_left = code[order], is_left[order]
    lefts_so_far = np.cumsum(is_left)
    starts = np.flatnonzero(np.r_[True, code[1:] != code[:-1]])
    group_start = np.repeat(starts, np.diff(np.r_[starts, code.size]))
    before_group = np.where(group_start > 0, lefts_so_far[group_start - 1], 0)
    return int((lefts_so_far - before_group)[~is_left].sum())
