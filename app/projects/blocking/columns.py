"""Blocking keys and pair counts over Arrow columns instead of one dict per record.

:func:`key_column` is :meth:`Key.apply` over a column, evaluated once per distinct value (a
key is a pure function of the value, so the result is the same value by value; a column of
a million names holds a few thousand distinct ones). :func:`count_candidates_of` is
:func:`~.counting.count_pairs` of :func:`~.codes.rule_codes` over columns: the keys are
coded by Arrow's hash encoding instead of a sort of Python strings, and a count reads codes
only where they are equal, so the totals are the same.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from app.projects.blocking.codes import Key, Rule, combine
from app.projects.blocking.counting import count_codes

__all__ = ["column_codes", "count_candidates_of", "key_column", "map_distinct"]


def map_distinct(function: Callable, values: pa.Array, type: pa.DataType) -> pa.Array:
    """``pa.array([function(v) for v in values], type)``, calling ``function`` once per
    distinct non-null value (a null stays null: ``function(None)`` must be ``None``)."""
    if isinstance(values, pa.ChunkedArray):
        values = values.combine_chunks()
    encoded = pc.dictionary_encode(values)
    mapped = pa.array([function(v) for v in encoded.dictionary.to_pylist()], type)
    return mapped.take(encoded.indices)


def key_column(key: Key, values: pa.Array) -> pa.Array:
    """``[key.apply(v) for v in values]`` as a string column."""
    return map_distinct(key.apply, values, pa.string())


def column_codes(values: pa.Array) -> np.ndarray:
    """An integer code per value, equal where the values are, ``-1`` where one is missing
    (null or ``""``, as :func:`~.codes.factorize` reads them)."""
    if isinstance(values, pa.ChunkedArray):
        values = values.combine_chunks()
    values = pc.if_else(pc.equal(values, ""), pa.scalar(None, values.type), values)
    indices = pc.dictionary_encode(values).indices
    return pc.fill_null(indices, -1).to_numpy(zero_copy_only=False).astype(np.int64)


def count_candidates_of(
    rules: Sequence[Rule], columns: Mapping[str, pa.Array], n_a: int, *, dedupe: bool
) -> int:
    """Distinct candidate pairs of ``rules`` over records given as ``columns`` (attribute ->
    its stored values, records of A first, ``n_a`` of them, then B's): what
    :func:`~.pairing.count_candidates` counts over the same records."""
    cache: dict[Key, pa.Array] = {}
    single: dict[Key, np.ndarray] = {}

    def keys(key: Key) -> pa.Array:
        if key not in cache:
            values = columns[key.attribute]
            if isinstance(values, pa.ChunkedArray):
                values = values.combine_chunks()
            cache[key] = values if key.transform == "exact" else key_column(key, values)
        return cache[key]

    def codes(key: Key) -> np.ndarray:
        if key not in single:
            single[key] = column_codes(keys(key))
        return single[key]

    n = len(next(iter(columns.values()))) if columns else 0
    out = []
    for rule in rules:
        code = None
        for left, right in zip(rule.keys, rule.right_keys, strict=True):
            if left == right:
                term = codes(left)
            else:  # left then right keys (2n) in one code space, as rule_codes makes them
                term = column_codes(pa.concat_arrays([keys(left), keys(right)]))
            code = term if code is None else combine(code, term)
        out.append(code)
    return count_codes(out, n_a, n, dedupe=dedupe).total
