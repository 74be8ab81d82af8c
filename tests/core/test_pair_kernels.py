"""The compiled partner walk (app.core.pair_kernels) equals the numpy path and the definition."""

from __future__ import annotations

from unittest import mock

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from app.core import pair_anonymity, pair_kernels, pair_tables
from app.core.anonymity import AnonymityIndex
from app.core.pair_anonymity import _has_partner, _search, count_pair
from app.core.pair_partners import Partners
from app.core.pair_reference import count_pair_reference
from tests.core.kapr_data import ATTRS, KINDS, columns, display

# Entries walked before the numpy path takes over (0: always), and rows taken list by list.
KERNEL = st.fixed_dictionaries(
    {"CAP": st.sampled_from([0, 1, 2, 1024]), "GROUPED": st.sampled_from([1, 10**9])}
)
HEAVY = st.sampled_from([-1, 1, 3, 10**9])


def _defined(rows, identical, different, partners: Partners, index: AnonymityIndex):
    """``N(r) > 0`` by its definition: some partner ``c != r`` agreeing on ``identical`` and
    differing, with a value, on ``different``."""
    slot = {a: index.columns[a].slots for a in ATTRS}
    found = []
    for r in rows.tolist():
        found.append(
            any(
                c != r
                and all(slot[a][c] == slot[a][r] for a in identical)
                and all(slot[f][c] not in (0, slot[f][r]) for f in different)
                for c in partners.records().tolist()
            )
        )
    return np.array(found, dtype=bool)


@settings(max_examples=300, deadline=None)
@given(data=st.data(), cols=columns(min_size=2, max_size=24), kernel=KERNEL, heavy=HEAVY)
def test_compiled_walk_matches_numpy_and_definition(data, cols, kernel, heavy):
    with (
        mock.patch.object(pair_tables, "HEAVY_GROUP", heavy),
        mock.patch.multiple(pair_kernels, **kernel),
    ):
        index = AnonymityIndex.build(cols, KINDS)
        tables = index.pair_tables
        identical = data.draw(st.sets(st.sampled_from(ATTRS), min_size=1))
        different = data.draw(st.sets(st.sampled_from(ATTRS))) - identical
        care = sum(tables.bit[a] for a in identical | different)
        care |= sum(tables.bit[a] for a in data.draw(st.sets(st.sampled_from(ATTRS))))
        want = data.draw(st.sampled_from([0, care & ~sum(tables.bit[a] for a in identical)]))
        constraints = {}
        if data.draw(st.booleans()):  # a partner that discloses something
            (pair,) = data.draw(display(index, index, max_pairs=1))
            constraints = index.constraints(pair.row("right"))
        partners = Partners(index, constraints, care, want)
        rows = np.array(
            sorted(data.draw(st.sets(st.integers(0, index.n - 1), min_size=1))), dtype=np.int32
        )
        # rows meet their side's presence: a value on every identical and different attribute
        shown = sum(tables.bit[a] for a in identical | different)
        rows = rows[tables.matches(rows, shown, 0)]
        same, unlike = frozenset(identical), frozenset(different)
        expected = _defined(rows, same, unlike, partners, index)
        with mock.patch.object(pair_anonymity, "COMPILED", False):
            assert _search(rows, same, unlike, partners).tolist() == expected.tolist()
        assert _search(rows, same, unlike, partners).tolist() == expected.tolist()
        assert _has_partner(rows, same, unlike, partners).tolist() == expected.tolist()


@settings(max_examples=150, deadline=None)
@given(data=st.data(), cols=columns(min_size=2, max_size=24), kernel=KERNEL, heavy=HEAVY)
def test_count_pair_with_compiled_walks_matches_the_reference(data, cols, kernel, heavy):
    with (
        mock.patch.object(pair_tables, "HEAVY_GROUP", heavy),
        mock.patch.object(pair_anonymity, "_WHOLE", data.draw(st.sampled_from([1, 10**9]))),
        mock.patch.object(pair_anonymity, "_WHOLE_MIN", 0),
        mock.patch.object(pair_anonymity, "_FEW", data.draw(st.sampled_from([0, 1 << 16]))),
        mock.patch.multiple(pair_kernels, **kernel),
    ):
        index = AnonymityIndex.build(cols, KINDS)
        for pair in data.draw(display(index, index, max_pairs=3)):
            for side, other in (("left", "right"), ("right", "left")):
                mine, theirs = pair.row(side), pair.row(other)
                expected = count_pair_reference(mine, theirs, pair.markers, side, index, index)
                assert count_pair(mine, theirs, pair.markers, side, index, index) == expected
