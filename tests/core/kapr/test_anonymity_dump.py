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


def _same_tables(built, loaded) -> None:
    for name in ("bit", "agreement", "heavy", "pivot", "complete", "n_pairs", "derived"):
        assert getattr(loaded, name) == getattr(built, name), name
    for name in ("missing", "incomplete"):
        assert np.array_equal(getattr(loaded, name), getattr(built, name)), name
    for name in ("codes", "counts", "both"):
        mine, theirs = getattr(built, name), getattr(loaded, name)
        assert mine.keys() == theirs.keys(), name
        for key, array in mine.items():
            assert array.dtype == theirs[key].dtype and np.array_equal(array, theirs[key])
    assert (built.pairs is None) == (loaded.pairs is None)
    for mine, theirs in zip(built.pairs or (), loaded.pairs or (), strict=True):
        assert np.array_equal(mine, theirs)


@settings(max_examples=60, deadline=None)
@given(data=st.data(), cols=columns())
def test_the_pair_models_tables_are_stored_with_the_index_and_not_built_again(data, cols):
    built = AnonymityIndex.build(cols, KINDS)
    built.pair_tables  # noqa: B018 (made before the dump, as a pair project's import does)
    loaded = AnonymityIndex.load(built.dump())
    assert "pair_tables" in loaded.__dict__  # restored, not made on first use
    _same_tables(built.pair_tables, loaded.pair_tables)
    (pair,) = data.draw(display(built, built, max_pairs=1))
    for side, other in (("left", "right"), ("right", "left")):
        mine = pair.row(side), pair.row(other), pair.markers, side
        assert count_pair(*mine, loaded, loaded) == count_pair(*mine, built, built)


def _crowded(n: int = 3000) -> dict[str, list[str | None]]:
    """A source whose names, dates and categories are shared by many records (heavy), and
    whose ids repeat a few times (the pivot's pairs): every kind of table gets made."""
    rng = np.random.default_rng(3)
    names = [f"n{k}" for k in range(150)]  # 150 x 108 keys: ranked (sparse) codes too
    dates = [f"{m:02d}/01/19{y}" for m in range(1, 13) for y in range(50, 59)]

    def pick(pool, none=0.05):
        return [None if rng.random() < none else pool[k] for k in rng.integers(0, len(pool), n)]

    return {
        "name": pick(names), "dob": pick(dates), "race": pick(["A", "B", "Black"]),
        "ident": [f"{i:05d}" for i in rng.integers(0, n - n // 10, n)],
    }  # fmt: skip


CROWDED = AnonymityIndex.build(_crowded(), KINDS)
CROWDED.pair_tables  # noqa: B018
RESTORED = AnonymityIndex.load(CROWDED.dump())


def test_a_crowded_sources_tables_round_trip_whole():
    tables = CROWDED.pair_tables
    assert len(tables.heavy) == 3 and tables.derived and len(tables.codes) > len(tables.heavy)
    assert tables.both and tables.pairs is not None and tables.n_pairs
    _same_tables(tables, RESTORED.pair_tables)


@settings(max_examples=25, deadline=None)
@given(data=st.data())
def test_a_crowded_source_counts_the_same_from_its_restored_tables(data):
    (pair,) = data.draw(display(CROWDED, CROWDED, max_pairs=1))
    for side, other in (("left", "right"), ("right", "left")):
        mine = pair.row(side), pair.row(other), pair.markers, side
        assert count_pair(*mine, RESTORED, RESTORED) == count_pair(*mine, CROWDED, CROWDED)
