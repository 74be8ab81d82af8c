"""The anonymity-set index and the ``pair`` model against brute force."""

from __future__ import annotations

from unittest import mock

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from app.core.disclosure import Level
from app.core.kapr import (
    AnonymityIndex,
    Evidence,
    Marker,
    PairView,
    Relation,
    consistent,
    count_pair,
    count_pair_reference,
)
from app.core.kapr.pair import count as pair_anonymity
from app.core.kapr.pair import reference as pair_reference
from tests.core.kapr_data import (
    ATTRS,
    KINDS,
    brute_candidates,
    brute_pair_k,
    cell,
    columns,
    display,
    row,
    values,
)

PAPER = {
    "name": ["Mary", "Mark", "Mary", "Mary"],
    "dob": ["08/09/1964", "08/09/1964", "09/08/1964", "09/08/1964"],
    "race": ["Hispanic", "Hispanic", "Black", "Black"],
}
PAPER_KINDS = {"name": "string", "dob": "date", "race": "category"}


@pytest.fixture
def paper() -> AnonymityIndex:
    return AnonymityIndex.build(PAPER, PAPER_KINDS)


@pytest.mark.parametrize(
    ("evidence", "expected"),
    [
        ({"name": Evidence.partial("Mary", [3])}, [0, 2, 3]),
        ({"name": Evidence.partial("Mark", [3])}, [1]),
        ({"dob": Evidence.partial("08091964", [1, 3])}, [0, 1]),
        (
            {"name": Evidence.partial("Mary", [3]), "dob": Evidence.partial("09081964", [1, 3])},
            [2, 3],
        ),
        ({"race": Evidence.full("Black", category=True)}, [2, 3]),
        ({"name": Evidence.full("Mark"), "race": Evidence.masked("Black")}, [1]),
        ({"name": Evidence.full("Marx")}, []),
        ({"name": Evidence.partial("Maryann", [0])}, []),
        ({"name": Evidence(Level.PARTIAL, 4)}, [0, 1, 2, 3]),
        ({}, [0, 1, 2, 3]),
    ],
)
def test_paper_records(paper, evidence, expected):
    assert paper.candidates(evidence).tolist() == expected
    assert paper.count(evidence) == len(expected)


def test_values_are_normalised(paper):
    assert paper.value("dob", 2) == "09081964"
    assert paper.n == 4 and paper.nbytes > 0


def test_missing_values_and_full_missing():
    index = AnonymityIndex.build({"name": ["Ann", None, "NA", "Bo"]}, {"name": "string"})
    assert index.candidates({"name": Evidence.full(None)}).tolist() == [1, 2]
    assert index.count({"name": Evidence.partial("Bo", [])}) == 1


def test_category_has_no_partial(paper):
    with pytest.raises(ValueError, match="no partial"):
        paper.count({"race": Evidence(Level.PARTIAL, 5, ((0, "B"),))})


def test_columns_must_align():
    with pytest.raises(ValueError, match="one value per record"):
        AnonymityIndex.build({"a": ["x"], "b": ["x", "y"]}, {"a": "string", "b": "string"})


@settings(max_examples=150, deadline=None)
@given(data=st.data(), cols=columns())
def test_index_matches_brute_force(data, cols):
    index = AnonymityIndex.build(cols, KINDS)
    target = data.draw(st.integers(0, index.n - 1))
    evidence = data.draw(row(values(index, target)))
    expected = brute_candidates(index, evidence)
    assert target in expected
    assert index.candidates(evidence).tolist() == expected
    assert index.count(evidence) == len(expected)


@settings(max_examples=100, deadline=None)
@given(data=st.data(), cols=columns(), other=columns())
def test_index_matches_brute_force_on_foreign_evidence(data, cols, other):
    index = AnonymityIndex.build(cols, KINDS)
    foreign = AnonymityIndex.build(other, KINDS)
    source = values(foreign, data.draw(st.integers(0, foreign.n - 1)))
    evidence = {a: data.draw(cell(source[a], a)) for a in ATTRS}
    assert index.count(evidence) == len(brute_candidates(index, evidence))


@settings(max_examples=150, deadline=None)
@given(data=st.data(), cols=columns(), two_sources=st.booleans())
def test_pair_model_matches_brute_force(data, cols, two_sources):
    left = AnonymityIndex.build(cols, KINDS)
    right = AnonymityIndex.build(data.draw(columns()), KINDS) if two_sources else left
    (pair,) = data.draw(display(left, right, max_pairs=1))
    for side, mine, theirs in (("left", left, right), ("right", right, left)):
        other = "right" if side == "left" else "left"
        k = count_pair(pair.row(side), pair.row(other), pair.markers, side, mine, theirs)
        assert k == brute_pair_k(pair, side, left, right) >= 1


@settings(max_examples=100, deadline=None)
@given(data=st.data(), cols=columns(), two_sources=st.booleans(), dense=st.sampled_from([0, 9]))
def test_pair_model_counting_paths_agree_with_brute_force(data, cols, two_sources, dense):
    """The reference count by a dense table and by sorted keys gives the brute force's ``k``."""
    left = AnonymityIndex.build(cols, KINDS)
    right = AnonymityIndex.build(data.draw(columns()), KINDS) if two_sources else left
    (pair,) = data.draw(display(left, right, max_pairs=1))
    # -2**40 forces sorted keys on every term; 9 lets small spans use a table.
    with mock.patch.object(pair_reference, "_DENSE_FACTOR", -(2**40) if dense == 0 else dense):
        k = count_pair_reference(pair.left, pair.right, pair.markers, "left", left, right)
    assert k == brute_pair_k(pair, "left", left, right)


@settings(max_examples=100, deadline=None)
@given(data=st.data(), cols=columns(), two_sources=st.booleans())
def test_pair_model_with_partial_markers(data, cols, two_sources):
    """Markers on a subset of attributes, with rows from any records."""
    left = AnonymityIndex.build(cols, KINDS)
    right = AnonymityIndex.build(data.draw(columns()), KINDS) if two_sources else left
    (pair,) = data.draw(display(left, right, max_pairs=1))
    keep = data.draw(st.sets(st.sampled_from(ATTRS)))
    pair = PairView(pair.left, pair.right, {a: m for a, m in pair.markers.items() if a in keep})
    k = count_pair(pair.left, pair.right, pair.markers, "left", left, right)
    assert k == brute_pair_k(pair, "left", left, right)


def test_pair_model_never_exceeds_row_model(paper):
    row = {"name": Evidence.partial("Mary", [3])}
    partner = {"name": Evidence.partial("Mark", [3])}
    markers = {
        "name": Marker(Relation.DIFFERENT),
        "dob": Marker(Relation.IDENTICAL),
        "race": Marker(Relation.IDENTICAL),
    }
    assert count_pair(row, partner, markers, "left", paper, paper) == 1
    assert paper.count(row) == 3


def test_pair_model_counts_are_remembered_per_index_and_state(paper):
    row = {"name": Evidence.partial("Mary", [3])}
    partner = {"name": Evidence.partial("Mark", [3])}
    markers = {"name": Marker(Relation.DIFFERENT), "dob": Marker(Relation.IDENTICAL)}
    counted = mock.Mock(wraps=pair_anonymity._count_pair)
    with mock.patch.object(pair_anonymity, "_count_pair", counted):
        first = count_pair(row, partner, markers, "left", paper, paper)
        assert count_pair(dict(row), dict(partner), dict(markers), "left", paper, paper) == first
        assert counted.call_count == 1  # an equal state is looked up, not counted again
        wider = {"name": Evidence.masked("Mary")}
        assert count_pair(wider, partner, markers, "left", paper, paper) >= first
        count_pair(row, partner, markers, "right", paper, paper)
        fresh = AnonymityIndex.build(PAPER, PAPER_KINDS)  # records changed: a new index
        assert count_pair(row, partner, markers, "left", fresh, fresh) == first
        assert counted.call_count == 4


def test_self_is_not_a_partner():
    index = AnonymityIndex.build({"name": ["Ann", "Bo"]}, {"name": "string"})
    row = {"name": Evidence.full("Ann")}
    markers = {"name": Marker(Relation.IDENTICAL)}
    assert count_pair(row, {}, markers, "left", index, index) == 0
    other = AnonymityIndex.build({"name": ["Ann"]}, {"name": "string"})
    assert count_pair(row, {}, markers, "left", index, other) == 1


def test_consistent_and_large_build():
    assert consistent("Mary", Evidence.partial("Mary", [3]))
    assert not consistent(None, Evidence.partial("Mary", [3]))
    rng = np.random.default_rng(0)
    names = [f"n{i}" for i in rng.integers(0, 500, 20_000)]
    index = AnonymityIndex.build({"name": names}, {"name": "string"})
    ev = {"name": Evidence.partial(names[0], [1])}
    assert index.count(ev) == sum(n[1] == names[0][1] and len(n) == len(names[0]) for n in names)


@settings(max_examples=80, deadline=None)
@given(data=st.data(), n=st.integers(1, 12))
def test_category_tables_match_brute_force(data, n):
    """Two categories and a string: counts from the precomputed tables equal a scan."""
    kinds = {"sex": "category", "race": "category", "name": "string"}
    sex = st.one_of(st.none(), st.sampled_from(["F", "M"]))
    race = st.sampled_from(["A", "B", "C"])
    name = st.text("ab", min_size=1, max_size=3)
    strategies = {"sex": sex, "race": race, "name": name}
    cols = {a: data.draw(st.lists(s, min_size=n, max_size=n)) for a, s in strategies.items()}
    index = AnonymityIndex.build(cols, kinds)
    assert index.cube == ["sex", "race"]
    target = data.draw(st.integers(0, n - 1))
    evidence = {}
    for a in kinds:
        value = index.value(a, target)
        if data.draw(st.booleans()):
            evidence[a] = Evidence.full(value, category=kinds[a] == "category")
        elif a == "name" and value:
            evidence[a] = Evidence.partial(
                value, data.draw(st.sets(st.integers(0, len(value) - 1)))
            )
    assert index.count(evidence) == len(brute_candidates(index, evidence))
