"""Pairs as a JSON body gives them: ``[a, b]`` or ``{"a", "b", scores...}`` (docs/api.md).

``a`` names a record of source A (``records_a``, or ``records`` when deduplicating), ``b``
one of source B (or A). An object may carry ``match_probability`` (0..1), ``match_weight``
and ``match_key``; a missing score is derived from the other (Splink's
``p = 2^w / (1 + 2^w)``), and a pair with neither is unscored (NaN).
"""

from __future__ import annotations

import math
from collections.abc import Mapping

import numpy as np

from app.projects.reading.predictions import ScoredPairs

__all__ = ["ItemsError", "pairs_from_items"]

MAX_PROBLEMS = 20
MAX_KEY = 200


class ItemsError(ValueError):
    """Some pair items are malformed; ``problems`` names each by its number."""

    def __init__(self, problems: list[str]):
        self.problems = list(problems)
        super().__init__("; ".join(self.problems[:5]))


def _id(value) -> str | None:
    if isinstance(value, bool) or not isinstance(value, str | int):
        return None
    text = str(value).strip()
    return text or None


def _score(item: Mapping, name: str) -> float | None | bool:
    """The score, ``None`` when absent, ``False`` when it is not a finite number."""
    value = item.get(name)
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value):
        return False
    return float(value)


def pairs_from_items(raw: object) -> ScoredPairs:
    """Parse a list of pair items; raise :class:`ItemsError` naming every bad one."""
    if not isinstance(raw, list):
        raise ItemsError(['\'pairs\' must be a list of [a, b] or {"a": ..., "b": ...}'])
    problems: list[str] = []
    id_l, id_r, probability, weight, keys = [], [], [], [], []
    for n, item in enumerate(raw, start=1):
        if isinstance(item, list | tuple):
            item = dict(zip(("a", "b"), item, strict=False)) if len(item) == 2 else None
        if not isinstance(item, Mapping):
            problems.append(f"pair {n}: must be [a, b] or an object with 'a' and 'b'")
            continue
        a, b = _id(item.get("a")), _id(item.get("b"))
        p, w = _score(item, "match_probability"), _score(item, "match_weight")
        key = item.get("match_key")
        if a is None or b is None:
            problems.append(f"pair {n}: needs record ids 'a' and 'b'")
        elif p is False or (p is not None and not 0 <= p <= 1):
            problems.append(f"pair {n}: 'match_probability' must be a number from 0 to 1")
        elif w is False:
            problems.append(f"pair {n}: 'match_weight' must be a finite number")
        elif key is not None and (isinstance(key, bool) or not isinstance(key, str | int)):
            problems.append(f"pair {n}: 'match_key' must be a string or a whole number")
        else:
            id_l.append(a)
            id_r.append(b)
            probability.append(math.nan if p is None else p)
            weight.append(math.nan if w is None else w)
            keys.append(None if key is None else str(key)[:MAX_KEY])
        if len(problems) >= MAX_PROBLEMS:
            break
    if problems:
        raise ItemsError(problems)
    prob, wt = np.asarray(probability, float), np.asarray(weight, float)
    only_w = np.isnan(prob) & ~np.isnan(wt)
    prob[only_w] = 1.0 / (1.0 + np.exp2(-wt[only_w]))
    only_p = np.isnan(wt) & ~np.isnan(prob)
    with np.errstate(divide="ignore"):
        wt[only_p] = np.log2(prob[only_p]) - np.log2(1.0 - prob[only_p])
    return ScoredPairs(
        id_l, id_r, prob, wt, match_key=keys if any(k is not None for k in keys) else None
    )
