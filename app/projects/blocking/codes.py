"""Integer codes of records' blocking keys, which counting and listing pairs work on.

Each rule gives every record a code (``-1``: a key part is missing, which never blocks); two
records agree on the rule when the left code of one equals the right code of the other. A
rule that reads both records alike has one code per record (``n``); a cross-attribute rule
has the left codes then the right codes (``2n``) in one code space. Each key's values are
computed once per call (:meth:`Key.apply`, the same function for every caller), factorised
per term of a rule (``l.a = r.b``) and combined across terms with numpy.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Protocol

import numpy as np

__all__ = ["combine", "factorize", "rule_codes"]


class Key(Protocol):
    attribute: str
    transform: str

    def apply(self, value: str | None) -> str | None: ...


class Rule(Protocol):
    @property
    def keys(self) -> tuple: ...

    @property
    def right_keys(self) -> tuple: ...


def rule_codes(rules: Sequence[Rule], values: Sequence[Mapping]) -> list[np.ndarray]:
    """Per rule, every record's codes: ``n`` of them, or ``2n`` (left, then right)."""
    cache: dict = {}

    def column(key: Key) -> list:
        if key not in cache:
            name = key.attribute
            if key.transform == "exact":
                cache[key] = [v.get(name) or None for v in values]
            else:
                apply = key.apply
                cache[key] = [apply(v.get(name)) for v in values]
        return cache[key]

    out = []
    for rule in rules:
        code = None
        for left, right in zip(rule.keys, rule.right_keys, strict=True):
            term = factorize(column(left) if left == right else column(left) + column(right))
            code = term if code is None else combine(code, term)
        out.append(code)
    return out


def factorize(keys: list) -> np.ndarray:
    """Integer code per key (``-1`` for missing); equal keys share a code.

    The keys become one fixed-width numpy string array, sorted in C (``np.unique``): no
    Python hashing per key. A key is never ``""`` (:meth:`Key.apply` makes that missing),
    so ``""`` stands for missing here.
    """
    if not keys:
        return np.empty(0, np.int64)
    array = np.array([k or "" for k in keys], dtype=str)
    uniques, codes = np.unique(array, return_inverse=True)
    codes = codes.astype(np.int64, copy=False)
    if uniques.size and uniques[0] == "":
        codes -= 1  # "" sorts first: missing becomes -1, the others stay dense
    return codes


def combine(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Codes of the key pairs ``(a, b)``, re-numbered densely; missing stays ``-1``.

    A one-sided array (``n`` codes) is repeated to meet a two-sided one (``2n``), so the
    two halves stay in one code space.
    """
    if a.size != b.size:
        a, b = (np.concatenate([a, a]), b) if a.size < b.size else (a, np.concatenate([b, b]))
    valid = (a >= 0) & (b >= 0)
    out = np.full(a.shape, -1, np.int64)
    if valid.any():
        joint = a[valid] * (int(b.max()) + 1) + b[valid]
        out[valid] = np.unique(joint, return_inverse=True)[1]
    return out
