"""The table-based ``pair``-model count equals the sorted-key reference on every path."""

from __future__ import annotations

from itertools import combinations
from unittest import mock

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from app.core.kapr import (
    AnonymityIndex,
    Evidence,
    Marker,
    PairView,
    Relation,
    count_pair,
    count_pair_reference,
)
from app.core.kapr import _pair_tables as pair_tables
from app.core.kapr.pair import _masks as pair_masks
from app.core.kapr.pair import _partners as pair_partners
from app.core.kapr.pair import _search as pair_search
from app.core.kapr.pair import _walk as pair_walk
from app.core.kapr.pair import count as pair_anonymity
from tests.core.kapr_data import ATTRS, KINDS, brute_pair_k, columns, display

MARKERS = st.one_of(
    st.sampled_from([Marker(Relation.IDENTICAL), Marker(Relation.DIFFERENT)]),
    st.sampled_from([(True, False), (False, True), (True, True)]).map(
        lambda flags: Marker(Relation.MISSING, *flags)
    ),
)


@st.composite
def knobs(draw) -> dict:
    """Thresholds that steer the count onto each of its paths (tables, walks, masks)."""
    return {
        (pair_tables, "HEAVY_GROUP"): draw(st.sampled_from([-1, 1, 3, 10**9])),
        (pair_tables, "MAX_HEAVY"): draw(st.integers(1, 4)),
        (pair_tables, "SHARED"): draw(st.sampled_from([0, 0.3, 2])),
        (pair_masks, "_WHOLE"): draw(st.sampled_from([1, 4, 10**9])),
        (pair_masks, "_WHOLE_MIN"): 0,
        (pair_anonymity, "_FEW"): draw(st.sampled_from([0, 1 << 16])),
        (pair_search, "_BY_CODE"): draw(st.sampled_from([0, 4, 4096])),
        (pair_search, "_KEEP"): draw(st.sampled_from([0, 1, 4])),
        (pair_tables, "_PER_RECORD_BYTES"): draw(st.sampled_from([0, 1 << 20])),
        (pair_masks, "_MINORITY"): draw(st.sampled_from([0, 1, 8])),
        (pair_search, "_BY_PAIRS"): draw(st.sampled_from([0, 8, 10**9])),
        (pair_search, "_LOOSE"): draw(st.sampled_from([-1, 1, 64])),
        (pair_partners, "_DENSE_LOOKUP"): draw(st.sampled_from([0, 1 << 22])),
        (pair_partners, "_BY_ROW"): draw(st.sampled_from([0, 8, 10**9])),
        (pair_walk, "_WALK_CHUNK"): draw(st.sampled_from([1, 3, 1 << 16])),
        (pair_walk, "_DENSE_KEYS"): draw(st.sampled_from([0, 1 << 22])),
        (pair_walk, "_KEY_LIMIT"): draw(st.sampled_from([1, 1 << 62])),
    }


def _patched(settings_: dict):
    patches = [
        mock.patch.object(module, name, value) for (module, name), value in settings_.items()
    ]
    for p in patches:
        p.start()
    return patches


@settings(max_examples=300, deadline=None)
@given(
    data=st.data(),
    cols=columns(min_size=2, max_size=24),
    paths=knobs(),
    arbitrary=st.booleans(),
)
def test_tables_match_the_reference(data, cols, paths, arbitrary):
    patches = _patched(paths)
    try:
        index = AnonymityIndex.build(cols, KINDS)
        pairs = data.draw(display(index, index, max_pairs=3))
        for pair in pairs:
            markers = dict(pair.markers)
            if arbitrary:  # markers no pair of records need satisfy, on any attributes
                keep = data.draw(st.sets(st.sampled_from(ATTRS)))
                markers = {a: data.draw(MARKERS) for a in keep}
            for side, other in (("left", "right"), ("right", "left")):
                expected = count_pair_reference(
                    pair.row(side), pair.row(other), markers, side, index, index
                )
                k = count_pair(pair.row(side), pair.row(other), markers, side, index, index)
                assert k == expected
    finally:
        for p in patches:
            p.stop()


@settings(max_examples=60, deadline=None)
@given(data=st.data(), cols=columns(min_size=2, max_size=16), paths=knobs())
def test_tables_match_brute_force(data, cols, paths):
    patches = _patched(paths)
    try:
        index = AnonymityIndex.build(cols, KINDS)
        (pair,) = data.draw(display(index, index, max_pairs=1))
        for side, other in (("left", "right"), ("right", "left")):
            k = count_pair(pair.row(side), pair.row(other), pair.markers, side, index, index)
            assert k == brute_pair_k(pair, side, index, index) >= 1
    finally:
        for p in patches:
            p.stop()


def test_tables_count_complete_records_per_subset():
    cols = {
        "name": ["Ann", "Ann", "Bo", None, "Ann"],
        "dob": ["01/02/1960"] * 5,
        "race": ["A", "A", "B", "A", None],
        "ident": ["01", "02", "03", "04", "05"],
    }
    with mock.patch.object(pair_tables, "HEAVY_GROUP", 1):
        index = AnonymityIndex.build(cols, KINDS)
        tables = index.pair_tables  # made on first use: under the patch
    assert tables.heavy == {"name", "dob", "race"}  # every id is its own
    assert tables.incomplete.tolist() == [3, 4] and tables.complete == 3
    both = frozenset({"name", "race"})
    codes = tables.code(both, np.arange(5))
    assert codes[0] == codes[1] != codes[2]
    assert tables.counts[both][codes[0]] == 2  # record 4 (Ann, no race) is not complete
    assert len(tables.counts) == 2**3 - 1
    assert index.nbytes > tables.nbytes > 0


def test_tables_are_built_with_the_index_and_replaced_with_it():
    cols = {a: [["Ann", "01/02/1960", "A", "01"][i]] * 3 for i, a in enumerate(ATTRS)}
    index = AnonymityIndex.build(cols, KINDS)
    row = {"name": Evidence.full("Ann")}
    markers = {"name": Marker(Relation.IDENTICAL)}
    assert count_pair(row, {}, markers, "left", index, index) == 3
    assert index.pair_partners and index.pair_counts
    cols["name"][2] = "Bo"  # records changed: a new index with its own tables and caches
    fresh = AnonymityIndex.build(cols, KINDS)
    assert fresh.pair_tables is not index.pair_tables and not fresh.pair_partners
    assert count_pair(row, {}, markers, "left", fresh, fresh) == 2


def test_a_large_masked_row_is_answered_from_one_mask_per_markers():
    rng = np.random.default_rng(1)
    n = 5000
    cols = {
        "name": [f"n{i}" for i in rng.integers(0, 40, n)],
        "dob": [f"01/{d:02d}/1960" for d in rng.integers(1, 29, n)],
        "race": rng.choice(["A", "B", "Black"], n).tolist(),
        "ident": [f"{i:05d}" for i in rng.permutation(n)],
    }
    index = AnonymityIndex.build(cols, KINDS)
    markers = {
        "name": Marker(Relation.IDENTICAL),
        "dob": Marker(Relation.DIFFERENT),
        "race": Marker(Relation.DIFFERENT),
        "ident": Marker(Relation.DIFFERENT),
    }
    rows = [{"race": Evidence.full(v, category=True)} for v in ("A", "B", "Black")]
    for row in rows:
        expected = count_pair_reference(row, {}, markers, "left", index, index)
        with mock.patch.object(pair_masks, "_WHOLE_MIN", 1000):
            assert count_pair(row, {}, markers, "left", index, index) == expected
    assert len(index.pair_masks) == 1  # the three rows shared the partner state's mask
    pair = PairView(rows[0], {}, markers)
    assert count_pair(pair.left, {}, markers, "left", index, index) == brute_pair_k(
        pair, "left", index, index
    )


def test_every_subset_of_heavy_attributes_has_a_table():
    cols = {a: ["x1", "x2"] if a != "race" else ["A", "B"] for a in ATTRS}
    cols["dob"] = ["01/02/1960", "01/03/1960"]
    with mock.patch.object(pair_tables, "HEAVY_GROUP", -1):
        index = AnonymityIndex.build(cols, KINDS)
        heavy = sorted(index.pair_tables.heavy)  # made on first use: under the patch
    assert len(heavy) == len(ATTRS)
    subsets = {frozenset(c) for r in range(1, len(heavy) + 1) for c in combinations(heavy, r)}
    assert set(index.pair_tables.counts) == subsets
