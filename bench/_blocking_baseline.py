"""The in-app blocking as it was before issue 24 (main at 67b06b2), for ``bench/blocking.py``.

Counting (inclusion–exclusion over integer codes, each record's key a Python tuple hashed
into a dict) and listing (a Python loop over every pair) of symmetric rules, copied
unchanged but for the names. Not a bench itself (``run_all.py`` skips ``_`` modules).
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence

import numpy as np

Records = Mapping[str, Mapping[str, str | None]]


def count_pairs(records_a: Records, records_b: Records | None, rules) -> int:
    values = [*records_a.values(), *(records_b.values() if records_b is not None else ())]
    codes = [_factorize([rule.key(v) for v in values]) for rule in rules]
    new = [0] * len(rules)

    def visit(code, size: int, start: int) -> None:
        for r in range(start, len(rules)):
            joint = codes[r] if code is None else _combine(code, codes[r])
            count = _count(joint, len(records_a), dedupe=records_b is None)
            if not count:
                continue
            new[r] += count if size % 2 == 0 else -count
            visit(joint, size + 1, r + 1)

    visit(None, 0, 0)
    return sum(new)


def _factorize(keys: list) -> np.ndarray:
    table: dict = {}
    return np.fromiter(
        (-1 if k is None else table.setdefault(k, len(table)) for k in keys), np.int64, len(keys)
    )


def _combine(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    valid = (a >= 0) & (b >= 0)
    out = np.full(a.shape, -1, np.int64)
    if valid.any():
        joint = a[valid] * (int(b.max()) + 1) + b[valid]
        out[valid] = np.unique(joint, return_inverse=True)[1]
    return out


def _count(code: np.ndarray, n_a: int, *, dedupe: bool) -> int:
    size = int(code.max()) + 1 if code.size else 0
    if size <= 0:
        return 0
    if dedupe:
        c = np.bincount(code[code >= 0], minlength=size)
        return int((c * (c - 1) // 2).sum())
    a, b = code[:n_a], code[n_a:]
    ca = np.bincount(a[a >= 0], minlength=size)
    cb = np.bincount(b[b >= 0], minlength=size)
    return int((ca * cb).sum())


def _keys(records: Records, rules: Sequence) -> tuple[list[str], list[list]]:
    ids = list(records)
    return ids, [[rule.key(records[i]) for i in ids] for rule in rules]


def _generate(
    records_a: Records, records_b: Records | None, rules: Sequence
) -> Iterator[tuple[str, str, int]]:
    ids_a, keys_a = _keys(records_a, rules)
    ids_b, keys_b = (ids_a, keys_a) if records_b is None else _keys(records_b, rules)

    def earlier(i: int, j: int, r: int) -> bool:
        return any(keys_a[q][i] is not None and keys_a[q][i] == keys_b[q][j] for q in range(r))

    for r in range(len(rules)):
        groups: dict[tuple[str, ...], list[int]] = {}
        for j, key in enumerate(keys_b[r]):
            if key is not None:
                groups.setdefault(key, []).append(j)
        if records_b is None:
            for members in groups.values():
                for x, i in enumerate(members):
                    for j in members[x + 1 :]:
                        if not earlier(i, j, r):
                            yield ids_a[i], ids_a[j], r
            continue
        for i, key in enumerate(keys_a[r]):
            for j in groups.get(key, ()) if key is not None else ():
                if not earlier(i, j, r):
                    yield ids_a[i], ids_b[j], r
