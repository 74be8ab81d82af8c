"""Blocking keys and pair counts over Arrow columns instead of one dict per record.

:func:`key_column` is :meth:`Key.apply` over a column: with Arrow's string kernels for the
transforms they spell exactly (``first_n``/``last_n`` slice code points as Python does; a
date part only once every value is eight ASCII digits, where ``isdigit`` holds), else by
calling :meth:`Key.apply` once per distinct value (a key is a pure function of the value; a
column of a million names holds a few thousand distinct ones). The tests check both forms
against the per-value function on arbitrary text (``tests/projects/blocking``).

:func:`count_candidates_of` is
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
from app.projects.blocking.rules import DATE_PARTS

__all__ = [
    "all_eight_digits", "as_array", "blank_to_null", "candidate_codes", "column_codes",
    "count_candidates_of", "key_column", "map_distinct",
]  # fmt: skip

_EIGHT_DIGITS = "^[0-9]{8}$"


def as_array(values: pa.Array | pa.ChunkedArray) -> pa.Array:
    """One contiguous array (a chunked column's chunks combined)."""
    return values.combine_chunks() if isinstance(values, pa.ChunkedArray) else values


def map_distinct(function: Callable, values: pa.Array, type: pa.DataType) -> pa.Array:
    """``pa.array([function(v) for v in values], type)``, calling ``function`` once per
    distinct non-null value (a null stays null: ``function(None)`` must be ``None``)."""
    values = as_array(values)
    encoded = pc.dictionary_encode(values)
    mapped = pa.array([function(v) for v in encoded.dictionary.to_pylist()], type)
    return mapped.take(encoded.indices)


def key_column(key: Key, values: pa.Array) -> pa.Array:
    """``[key.apply(v) for v in values]`` as a string column."""
    values = as_array(values)
    transform, n = key.transform, key.n
    if transform == "exact":
        return blank_to_null(values)
    if transform in ("first_n", "last_n") and isinstance(n, int) and n >= 1:
        start, stop = (0, n) if transform == "first_n" else (-n, None)
        return blank_to_null(pc.utf8_slice_codeunits(values, start, stop))
    if transform in DATE_PARTS and all_eight_digits(values):
        part = DATE_PARTS[transform]
        return pc.utf8_slice_codeunits(values, part.start, part.stop)
    return map_distinct(key.apply, values, pa.string())


def all_eight_digits(values: pa.Array) -> bool:
    """Whether every value present is eight ASCII digits (as a stored ``MMDDYYYY`` date)."""
    if values.null_count == len(values):
        return True
    return bool(pc.all(pc.match_substring_regex(values, _EIGHT_DIGITS)).as_py())


def blank_to_null(values: pa.Array) -> pa.Array:
    """``values`` with each ``""`` missing (``v or None``)."""
    if not pc.any(pc.equal(values, "")).as_py():
        return values
    # (Arrow's fast path: the null scalar last)
    return pc.if_else(pc.not_equal(values, ""), values, pa.scalar(None, values.type))


def column_codes(values: pa.Array) -> np.ndarray:
    """An integer code per value, equal where the values are, ``-1`` where one is missing
    (null or ``""``, as :func:`~.codes.factorize` reads them)."""
    values = as_array(values)
    indices = pc.dictionary_encode(blank_to_null(values)).indices
    return pc.fill_null(indices, -1).to_numpy(zero_copy_only=False).astype(np.int64)


def count_candidates_of(
    rules: Sequence[Rule], columns: Mapping[str, pa.Array], n_a: int, *, dedupe: bool
) -> int:
    """Distinct candidate pairs of ``rules`` over records given as ``columns`` (attribute ->
    its stored values, records of A first, ``n_a`` of them, then B's): what
    :func:`~.pairing.count_candidates` counts over the same records."""
    n = len(next(iter(columns.values()))) if columns else 0
    return count_codes(candidate_codes(rules, columns), n_a, n, dedupe=dedupe).total


def candidate_codes(rules: Sequence[Rule], columns: Mapping[str, pa.Array]) -> list[np.ndarray]:
    """Per rule, every record's key codes over ``columns`` (``n`` codes, or ``2n``: left,
    then right), equal exactly where :func:`~.codes.rule_codes` makes them equal."""
    cache: dict[Key, pa.Array] = {}
    single: dict[Key, np.ndarray] = {}

    def keys(key: Key) -> pa.Array:
        if key not in cache:
            values = columns[key.attribute]
            values = as_array(values)
            cache[key] = values if key.transform == "exact" else key_column(key, values)
        return cache[key]

    def codes(key: Key) -> np.ndarray:
        if key not in single:
            single[key] = column_codes(keys(key))
        return single[key]

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
    return out
