"""A dumped and loaded anonymity-set index is the index it was built as."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from app.core.kapr import AnonymityIndex, count_pair
from tests.core.kapr_data import KINDS, columns, display, row, values

ARRAYS = ("uniques", "slots", "counts", "offsets", "order", "chars", "char_slots", "len_slots")


def _same(built: AnonymityIndex, loaded: AnonymityIndex) -> None:
    assert loaded.n == built.n and list(loaded.columns) == list(built.columns)
    for name, column in built.columns.items():
        other = loaded.columns[name]
        assert other.kind is column.kind
        for array in ARRAYS:
            assert np.array_equal(getattr(other, array), getattr(column, array)), (name, array)
        assert other.char_keys == column.char_keys and other.len_keys == column.len_keys
    assert loaded.cube == built.cube
    assert loaded.pair_tables.heavy == built.pair_tables.heavy


@settings(max_examples=100, deadline=None)
@given(data=st.data(), cols=columns())
def test_a_loaded_index_counts_as_the_built_one(data, cols):
    built = AnonymityIndex.build(cols, KINDS)
    loaded = AnonymityIndex.load(built.dump())
    _same(built, loaded)
    evidence = data.draw(row(values(built, data.draw(st.integers(0, built.n - 1)))))
    assert loaded.candidates(evidence).tolist() == built.candidates(evidence).tolist()
    (pair,) = data.draw(display(built, built, max_pairs=1))
    for side, other in (("left", "right"), ("right", "left")):
        mine = pair.row(side), pair.row(other), pair.markers, side
        assert count_pair(*mine, loaded, loaded) == count_pair(*mine, built, built)


def test_empty_and_unicode_sources_round_trip():
    kinds = {"name": "string", "race": "category"}
    for cols in (
        {"name": [], "race": []},
        {"name": ["Zoë", None, "Øyvind"], "race": ["A", "B", None]},
    ):
        built = AnonymityIndex.build(cols, kinds)
        _same(built, AnonymityIndex.load(built.dump()))
    assert AnonymityIndex.load(AnonymityIndex.build({}, {}).dump()).n == 0
