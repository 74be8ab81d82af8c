"""The sorted-key ``pair``-model count, kept as the reference (spec/README.md §2).

This is how :mod:`app.core.kapr.pair.count` counted before the count tables: for every
inclusion-exclusion term it builds composite keys of the row's and the partner's candidates and
sorts or bins them (``np.isin``/``np.unique`` over whole-source keys when a side is masked).
It is exact, simple and slow at a million records; it stays as the oracle the property tests
compare the table-based count with, as the path for two different sources, and as the baseline
of ``bench/kapr.py``. The definition of ``k_i`` is in :mod:`app.core.kapr.pair.count`.
"""

from __future__ import annotations

from itertools import combinations

import numpy as np

from app.core.kapr.anonymity import AnonymityIndex
from app.core.kapr.evidence import Markers, Relation, Row

__all__ = ["count_pair_reference"]

_KEY_LIMIT = 1 << 62
# Count keys in a dense table when there are at most this many possible keys per record.
_DENSE_FACTOR = 4


def count_pair_reference(
    row: Row,
    partner: Row,
    markers: Markers,
    side: str,
    index: AnonymityIndex,
    partner_index: AnonymityIndex,
    candidates: np.ndarray | None = None,
    partner_candidates: np.ndarray | None = None,
) -> int:
    """Return ``k_i`` of ``row`` (shown on ``side``) under the ``pair`` model, by sorted keys."""
    return _count_pair(
        row, partner, markers, side, index, partner_index, candidates, partner_candidates
    )


def _count_pair(
    row: Row,
    partner: Row,
    markers: Markers,
    side: str,
    index: AnonymityIndex,
    partner_index: AnonymityIndex,
    candidates: np.ndarray | None,
    partner_candidates: np.ndarray | None,
) -> int:
    other = "right" if side == "left" else "left"
    a = index.candidates(row) if candidates is None else candidates
    b = partner_index.candidates(partner) if partner_candidates is None else partner_candidates
    identical, different = [], []
    for attr, marker in markers.items():
        a = a[(index.columns[attr].slots[a] == 0) == marker.missing(side)]
        b = b[(partner_index.columns[attr].slots[b] == 0) == marker.missing(other)]
        if marker.relation is Relation.IDENTICAL:
            identical.append(attr)
        elif marker.relation is Relation.DIFFERENT:
            different.append(attr)
    if not len(a) or not len(b):
        return 0
    same = index is partner_index
    codes = {
        attr: (
            index.columns[attr].slots[a],
            _translate(partner_index, index, attr)[partner_index.columns[attr].slots[b]],
        )
        for attr in identical + different
    }
    if identical:
        key_a, key_b, _ = _keys([codes[t] for t in identical])
        keep_b = np.isin(key_b, key_a)
        keep_a = np.isin(key_a, key_b[keep_b])
        a, b = a[keep_a], b[keep_b]
        codes = {t: (ca[keep_a], cb[keep_b]) for t, (ca, cb) in codes.items()}
        if not len(a):
            return 0
    if not different:
        partners = _agreeing(codes, identical, np.arange(len(a)), len(b))
        if same:
            at = np.minimum(np.searchsorted(b, a), len(b) - 1)
            partners -= (b[at] == a).astype(np.int64)  # r itself is no partner
        return int(np.count_nonzero(partners > 0))
    # With a "different" attribute r itself is never its own partner. The partial sums of
    # the inclusion-exclusion alternate between lower (odd order) and upper (even order)
    # bounds (Bonferroni), so each order settles most records and only the rest go on to
    # the next: usually order one settles almost all, instead of 2^|F| terms for everyone.
    found = 0
    rest = np.arange(len(a))
    partial = np.zeros(len(a), dtype=np.int64)
    for size in range(len(different) + 1):
        for subset in combinations(different, size):
            hits = _agreeing(codes, identical + list(subset), rest, len(b))
            partial += -hits if size % 2 else hits
        if size == len(different):  # the sum is exact
            return found + int(np.count_nonzero(partial > 0))
        settled = partial > 0 if size % 2 else partial <= 0  # has a partner / has none
        found += int(np.count_nonzero(settled)) if size % 2 else 0
        rest, partial = rest[~settled], partial[~settled]
        if not len(rest):
            return found
    raise AssertionError("unreachable: the last order is exact")


def _agreeing(codes: dict, attrs: list[str], rows: np.ndarray, n_b: int) -> np.ndarray:
    """For the ``a`` records at ``rows``, how many ``b`` records equal each on ``attrs``."""
    if not attrs:
        return np.full(len(rows), n_b, dtype=np.int64)
    key_a, key_b, span = _keys([(codes[t][0][rows], codes[t][1]) for t in attrs])
    if span <= _DENSE_FACTOR * (len(key_a) + len(key_b)) + 1024:
        # Few possible keys (one attribute, or a few small ones): a table of counts per key
        # is linear, where sorting is not.
        return np.bincount(key_b, minlength=span)[key_a]
    keys, counts = np.unique(key_b, return_counts=True)
    at = np.minimum(np.searchsorted(keys, key_a), len(keys) - 1)
    return np.where(keys[at] == key_a, counts[at], 0)


def _keys(columns: list[tuple[np.ndarray, np.ndarray]]) -> tuple[np.ndarray, np.ndarray, int]:
    """Combine per-attribute codes of both sides into exact int64 keys (mixed radix).

    Returns both sides' keys and the span: every key is in ``range(span)``.
    """
    ka = np.zeros(len(columns[0][0]), dtype=np.int64)
    kb = np.zeros(len(columns[0][1]), dtype=np.int64)
    span = 1
    for ca, cb in columns:
        radix = int(max(ca.max(initial=0), cb.max(initial=0))) + 1
        if span * radix >= _KEY_LIMIT:  # re-rank the keys so far to keep them exact
            ranks, inverse = np.unique(np.concatenate((ka, kb)), return_inverse=True)
            ka, kb, span = inverse[: len(ka)], inverse[len(ka) :], len(ranks)
        ka = ka * radix + ca
        kb = kb * radix + cb
        span *= radix
    return ka, kb, span


def _translate(source: AnonymityIndex, target: AnonymityIndex, attr: str) -> np.ndarray:
    """Map ``source``'s slots of ``attr`` to ``target``'s (unknown values get fresh slots)."""
    if source is target:
        return np.arange(len(source.columns[attr].uniques), dtype=np.int64)
    key = (id(target), attr)
    cached = source.translations.get(key)
    if cached is not None and cached[0] is target:
        return cached[1]
    src, dst = source.columns[attr].uniques, target.columns[attr].uniques
    at = np.minimum(np.searchsorted(dst, src), len(dst) - 1)
    found = dst[at] == src
    fresh = len(dst) + np.arange(len(src))
    mapping = np.where(found, at, fresh).astype(np.int64)
    mapping[0] = 0
    source.translations[key] = (target, mapping)
    return mapping
