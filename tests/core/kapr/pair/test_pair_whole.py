"""The ``pair``-model paths that answer every record at once equal the reference.

Two paths never list a row's records: a row constrained on at most one attribute is counted
from a whole-source mask per value of that attribute, and a markers pattern whose identical
attributes hold the pivot (an id) is answered from the pivot's list of pairs of records.
"""

from __future__ import annotations

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
from app.core.kapr.pair import _search as pair_search
from app.core.kapr.pair import count as pair_anonymity
from tests.core.kapr_data import (
    ATTRS,
    KINDS,
    assert_count_pair_exact,
    brute_pair_k,
    cell,
    values,
)

RELATIONS = st.one_of(
    st.sampled_from([Marker(Relation.IDENTICAL), Marker(Relation.DIFFERENT)]),
    st.sampled_from([(True, False), (False, True), (True, True)]).map(
        lambda flags: Marker(Relation.MISSING, *flags)
    ),
)


@st.composite
def duplicated(draw) -> dict[str, list[str | None]]:
    """A source where ids repeat (a few records per person) and values are often missing."""
    n = draw(st.integers(4, 40))
    people = draw(st.integers(max(1, n // 3), n))
    ident = [f"{draw(st.integers(0, people - 1)):03d}" for _ in range(n)]
    missing = st.floats(0, 0.5)
    cols: dict[str, list[str | None]] = {"ident": ident}
    for a, choices in (
        ("name", ["ab", "ba", "abb", "b"]),
        ("dob", ["01/02/1960", "02/01/1960", "01/02/1961"]),
        ("race", ["A", "B", "Black"]),
    ):
        gap = draw(missing)
        picks = draw(st.lists(st.sampled_from(choices), min_size=n, max_size=n))
        holes = draw(st.lists(st.floats(0, 1), min_size=n, max_size=n))
        cols[a] = [None if h < gap else v for v, h in zip(picks, holes, strict=True)]
    if draw(st.booleans()):  # sometimes a missing id too
        cols["ident"][draw(st.integers(0, n - 1))] = None
    return {a: cols[a] for a in ATTRS}


def _patches(draw) -> list:
    knobs = {
        # Mostly nothing heavy, so that the id is light and the pivot.
        (pair_tables, "HEAVY_GROUP"): draw(st.sampled_from([-1, 3, 10**9, 10**9, 10**9])),
        (pair_anonymity, "_FEW"): draw(st.sampled_from([0, 1 << 16])),
        (pair_tables, "MAX_HEAVY"): draw(st.integers(1, 4)),
        (pair_masks, "_WHOLE"): draw(st.sampled_from([1, 4])),
        (pair_masks, "_WHOLE_MIN"): 0,
        (pair_search, "_BY_PAIRS"): draw(st.sampled_from([0, 1, 10**9])),
        (pair_search, "_LOOSE"): draw(st.sampled_from([-1, 1, 64])),
        (pair_search, "_BY_CODE"): draw(st.sampled_from([0, 4096])),
        (pair_search, "_KEEP"): draw(st.sampled_from([0, 1, 4])),
        (pair_masks, "_MINORITY"): draw(st.sampled_from([0, 1, 8])),
    }
    return [mock.patch.object(m, name, v) for (m, name), v in knobs.items()]


@settings(max_examples=250, deadline=None)
@given(data=st.data(), cols=duplicated(), arbitrary=st.booleans())
def test_one_attribute_rows_and_pivot_pairs_match_the_reference(data, cols, arbitrary):
    patches = _patches(data.draw)
    for p in patches:
        p.start()
    try:
        index = AnonymityIndex.build(cols, KINDS)
        i = data.draw(st.integers(0, index.n - 1))
        twins = [r for r in range(index.n) if cols["ident"][r] == cols["ident"][i]]
        j = data.draw(st.sampled_from(twins) | st.integers(0, index.n - 1))
        mine, theirs = values(index, i), values(index, j)
        markers = {a: Marker.between(mine[a], theirs[a]) for a in ATTRS}
        if arbitrary:  # markers no pair of records need satisfy
            keep = data.draw(st.sets(st.sampled_from(ATTRS)))
            markers = {a: data.draw(RELATIONS) for a in keep}
        shown = data.draw(st.sampled_from([None, *ATTRS]))  # at most one disclosed cell
        row = {} if shown is None else {shown: data.draw(cell(mine[shown], shown))}
        partner = {a: data.draw(cell(theirs[a], a)) for a in ATTRS}
        if data.draw(st.booleans()):
            partner = {a: Evidence.masked(theirs[a]) for a in ATTRS}
        assert_count_pair_exact(row, partner, markers, index)
    finally:
        for p in patches:
            p.stop()


@settings(max_examples=60, deadline=None)
@given(data=st.data(), cols=duplicated())
def test_one_attribute_rows_match_brute_force(data, cols):
    patches = _patches(data.draw)
    for p in patches:
        p.start()
    try:
        index = AnonymityIndex.build(cols, KINDS)
        i = data.draw(st.integers(0, index.n - 1))
        j = data.draw(st.integers(0, index.n - 1).filter(lambda j: j != i))
        mine, theirs = values(index, i), values(index, j)
        shown = data.draw(st.sampled_from(ATTRS))
        pair = PairView(
            {shown: data.draw(cell(mine[shown], shown))},
            {a: Evidence.masked(theirs[a]) for a in ATTRS},
            {a: Marker.between(mine[a], theirs[a]) for a in ATTRS},
        )
        k = count_pair(pair.left, pair.right, pair.markers, "left", index, index)
        assert k == brute_pair_k(pair, "left", index, index)
    finally:
        for p in patches:
            p.stop()


@settings(max_examples=150, deadline=None)
@given(data=st.data(), cols=duplicated())
def test_patterns_holding_the_id_match_the_reference(data, cols):
    with (
        mock.patch.object(pair_tables, "HEAVY_GROUP", data.draw(st.sampled_from([3, 10**9]))),
        mock.patch.object(pair_search, "_BY_PAIRS", 10**9),
        mock.patch.object(pair_anonymity, "_FEW", 0),
    ):
        index = AnonymityIndex.build(cols, KINDS)
        i = data.draw(st.integers(0, index.n - 1))
        j = data.draw(st.integers(0, index.n - 1))
        mine, theirs = values(index, i), values(index, j)
        keep = data.draw(st.sets(st.sampled_from(ATTRS)))
        markers = {a: data.draw(RELATIONS) for a in keep}
        markers["ident"] = Marker(Relation.IDENTICAL)
        row = {a: data.draw(cell(mine[a], a)) for a in ATTRS}
        partner = {a: data.draw(cell(theirs[a], a)) for a in ATTRS}
        for side in ("left", "right"):
            expected = count_pair_reference(row, partner, markers, side, index, index)
            assert count_pair(row, partner, markers, side, index, index) == expected


def _source(n: int = 400) -> dict[str, list[str | None]]:
    rng = np.random.default_rng(3)
    return {
        "name": [f"n{i}" for i in rng.integers(0, 30, n)],
        "dob": [f"01/{d:02d}/1960" for d in rng.integers(1, 20, n)],
        "race": rng.choice(["A", "B", "Black"], n).tolist(),
        "ident": [f"{i:04d}" for i in rng.integers(0, n // 2, n)],
    }


def test_pivot_pairs_list_each_pair_of_records_sharing_an_id_once():
    cols = {
        "name": ["Ann", "Ann", "Bo", "Ann", None],
        "dob": ["01/02/1960", "01/02/1960", None, "01/02/1960", "01/02/1960"],
        "race": ["A", "B", "A", "A", "A"],
        "ident": ["01", "01", "02", "01", "03"],
    }
    index = AnonymityIndex.build(cols, KINDS)
    tables = index.pair_tables
    assert tables.pivot == "ident"
    i, j, agree, differ = tables.pairs
    assert sorted(zip(i.tolist(), j.tolist(), strict=True)) == [(0, 1), (0, 3), (1, 3)]
    bits = {(a, b): (x, y) for a, b, x, y in zip(i, j, agree, differ, strict=True)}
    race, name = tables.bit["race"], tables.bit["name"]
    assert bits[0, 1][1] == race and bits[0, 1][0] & name  # differ on race only
    assert bits[0, 3] == (sum(tables.bit.values()), 0)  # the same on everything


def test_a_record_alone_with_its_id_has_no_partner():
    cols = _source()
    cols["ident"][0] = "alone"
    index = AnonymityIndex.build(cols, KINDS)
    row = {"ident": Evidence.full("alone")}
    markers = {a: Marker(Relation.IDENTICAL) for a in ATTRS}
    with mock.patch.object(pair_search, "_BY_PAIRS", 10**9):
        assert count_pair(row, {}, markers, "left", index, index) == 0
    assert count_pair_reference(row, {}, markers, "left", index, index) == 0


def test_rows_on_one_attribute_share_the_mask_and_its_counts_per_value():
    index = AnonymityIndex.build(_source(), KINDS)
    markers = {
        "name": Marker(Relation.IDENTICAL),
        "dob": Marker(Relation.DIFFERENT),
        "race": Marker(Relation.DIFFERENT),
        "ident": Marker(Relation.DIFFERENT),
    }
    rows = [{"race": Evidence.full(v, category=True)} for v in ("A", "B", "Black")]
    rows += [{"name": Evidence.partial("n1", [0])}, {}]
    with mock.patch.object(pair_masks, "_WHOLE_MIN", 0):
        for row in rows:
            expected = count_pair_reference(row, {}, markers, "left", index, index)
            assert count_pair(row, {}, markers, "left", index, index) == expected
    (mask,) = index.pair_masks.values()
    assert set(mask._per_value) == {"race", "name"}


def test_two_sources_still_count_by_the_reference():
    left = AnonymityIndex.build(_source(), KINDS)
    right = AnonymityIndex.build(_source(300), KINDS)
    row = {"race": Evidence.full("A", category=True)}
    markers = {"ident": Marker(Relation.IDENTICAL), "race": Marker(Relation.IDENTICAL)}
    with mock.patch.object(pair_masks, "_WHOLE_MIN", 0):
        k = count_pair(row, {}, markers, "left", left, right)
    assert k == count_pair_reference(row, {}, markers, "left", left, right)
    assert not left.pair_masks
