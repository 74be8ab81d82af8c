"""What a page's ``pair``-model masks share is exact: per-record counts kept on the tables, a
mask's records per value from its smaller side, and the partner side's shortcuts (whether a
presence pattern's records are partners, the largest count per code)."""

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
    Relation,
    count_pair,
    count_pair_reference,
)
from app.core.kapr import _pair_tables as pair_tables
from app.core.kapr.pair import _masks as pair_masks
from app.core.kapr.pair import _search as pair_search
from app.core.kapr.pair import _walk as pair_walk
from app.core.kapr.pair._masks import Mask
from app.core.kapr.pair._partners import Partners
from tests.core.kapr_data import ATTRS, KINDS, assert_count_pair_exact, cell, columns, values


def _subsets(attrs) -> list[frozenset[str]]:
    attrs = sorted(attrs)
    return [frozenset(c) for r in range(1, len(attrs) + 1) for c in combinations(attrs, r)]


def _heavy_index(cols) -> AnonymityIndex:
    with mock.patch.object(pair_tables, "HEAVY_GROUP", -1):
        index = AnonymityIndex.build(cols, KINDS)
        assert index.pair_tables is not None  # made on first use: under the patch
        return index


@settings(max_examples=80, deadline=None)
@given(cols=columns(min_size=2, max_size=20), cap=st.sampled_from([0, 64, 1 << 20]))
def test_kept_per_record_counts_are_the_complete_records_sharing_the_code(cols, cap):
    index = _heavy_index(cols)
    tables = index.pair_tables
    everyone = [values(index, r) for r in range(index.n)]
    complete = [v for v in everyone if all(x is not None for x in v.values())]
    with mock.patch.object(pair_tables, "_PER_RECORD_BYTES", cap):
        for attrs in _subsets(tables.heavy) * 2:  # asked twice: kept, or made again
            expected = [sum(all(c[a] == v[a] for a in attrs) for c in complete) for v in everyone]
            assert tables.per_record(attrs).tolist() == expected
            kept = [a.nbytes for a in tables.kept.values()]
            assert sum(kept) <= cap or len(kept) == 1  # one array larger than the cap


@settings(max_examples=80, deadline=None)
@given(cols=columns(min_size=2, max_size=20), data=st.data())
def test_a_code_rebuilt_with_another_value_counts_the_records_having_it(cols, data):
    """``code_with`` (a row's code over heavy attributes with one attribute's value swapped):
    where it can be rebuilt, its table count is the complete records sharing the row's other
    values and having the swapped one."""
    index = _heavy_index(cols)
    tables = index.pair_tables
    everyone = [values(index, r) for r in range(index.n)]
    complete = [v for v in everyone if all(x is not None for x in v.values())]
    attrs = data.draw(st.sampled_from(_subsets(tables.heavy)))
    a = data.draw(st.sampled_from(sorted(attrs)))
    column = index.columns[a]
    slot = data.draw(st.integers(1, len(column.uniques) - 1)) if len(column.uniques) > 1 else 0
    code = tables.code_with(attrs, np.arange(index.n), a, slot)
    if code is None:  # a ranked code on the way: the caller counts otherwise
        assert len(attrs) > 1
        return
    swapped = str(column.uniques[slot]) if slot else None
    for r, mine in enumerate(everyone):
        wanted = {**mine, a: swapped}
        expected = sum(all(c[b] == wanted[b] for b in attrs) for c in complete)
        assert int(tables.counts[attrs][code[r]]) == expected


@settings(max_examples=150, deadline=None)
@given(
    slots=st.lists(st.integers(0, 5), min_size=1, max_size=60),
    data=st.data(),
    minority=st.sampled_from([0, 1, 2, 8]),
)
def test_counts_per_value_from_the_smaller_side_equal_a_plain_count(slots, data, minority):
    class Column:  # the two fields of a ValueIndex that per_value reads
        def __init__(self, slots):
            self.slots = np.array(slots, dtype=np.int32)
            self.uniques = np.arange(6)
            self.counts = np.bincount(self.slots, minlength=6)

    picked = data.draw(st.lists(st.booleans(), min_size=len(slots), max_size=len(slots)))
    mask, column = np.array(picked), Column(slots)
    with mock.patch.object(pair_masks, "_MINORITY", minority):
        found = Mask(mask.copy()).per_value("a", column)
    assert found.tolist() == np.bincount(column.slots[mask], minlength=6).tolist()


@st.composite
def partner_states(draw, index: AnonymityIndex):
    """A presence pattern over some attributes and, sometimes, a disclosing partner row."""
    bit = index.pair_tables.bit
    cared = draw(st.sets(st.sampled_from(ATTRS)))
    wanted = draw(st.sets(st.sampled_from(sorted(cared)))) if cared else set()
    care, want = sum(bit[a] for a in cared), sum(bit[a] for a in wanted)
    row = {}
    if draw(st.booleans()):
        r = draw(st.integers(0, index.n - 1))
        a = draw(st.sampled_from(ATTRS))
        row = {a: Evidence.full(index.value(a, r), category=a == "race")}
    return Partners(index, index.constraints(row), care, want)


@settings(max_examples=120, deadline=None)
@given(cols=columns(min_size=2, max_size=16), data=st.data())
def test_partner_shortcuts_bound_and_decide_what_the_records_say(cols, data):
    index = _heavy_index(cols)
    partners = data.draw(partner_states(index))
    everyone = np.arange(index.n)
    for attrs in _subsets(index.pair_tables.heavy):
        assert partners.most(attrs) >= partners.count(attrs, everyone).max()
        if partners.all_complete():
            kept = partners.count(attrs, everyone, keep=True)
            assert kept.tolist() == partners.count(attrs, everyone).tolist()
    care, want = partners.care, data.draw(st.sampled_from([0, partners.want, partners.care]))
    known = partners.within(care, want)
    if known is not None:
        rows = index.pair_tables.pattern(care, want)
        assert partners.contains(rows).tolist() == [known] * len(rows)


@settings(max_examples=120, deadline=None)
@given(
    cols=columns(min_size=2, max_size=16),
    data=st.data(),
    heavy=st.booleans(),
    wide=st.booleans(),
)
def test_walking_the_partners_themselves_counts_what_the_posting_lists_count(
    cols, data, heavy, wide
):
    """Partner records grouped once per state (or, for keys too wide to keep, keyed with the
    rows each time) give every row the count a walk of its posting list gives."""
    index = _heavy_index(cols) if heavy else AnonymityIndex.build(cols, KINDS)
    partners = data.draw(partner_states(index))
    agree = frozenset(data.draw(st.sets(st.sampled_from(ATTRS), min_size=1)))
    rest = sorted(set(ATTRS) - agree)
    differ = frozenset(data.draw(st.sets(st.sampled_from(rest)))) if rest else frozenset()
    positions = st.integers(0, index.n - 1)
    rows = np.array(data.draw(st.lists(positions, max_size=2 * index.n)), dtype=np.intp)
    marked = sum(index.pair_tables.bit[a] for a in agree | differ)
    rows = rows[index.pair_tables.matches(rows, marked, 0)]  # as markers leave them
    expected = pair_walk.walk(partners, rows, agree, differ, exclude_self=True).tolist()
    with mock.patch.object(pair_walk, "_KEY_LIMIT", 1 if wide else pair_walk._KEY_LIMIT):
        for _ in range(2):  # grouped once, then the groups kept
            walked = pair_walk.walk_partners(partners, rows, agree, differ)
            assert walked.tolist() == expected  # (None only beyond 65,536 entries to walk)


def _near_misses(n: int = 3000) -> dict[str, list[str | None]]:
    """Records sharing a few last names, with values missing now and then."""
    rng = np.random.default_rng(5)
    days, years = rng.integers(1, 29, n), rng.integers(50, 99, n)
    cols: dict[str, list[str | None]] = {
        "name": [f"n{i}" for i in rng.integers(0, 40, n)],
        "dob": [f"01/{d:02d}/19{y}" for d, y in zip(days, years, strict=True)],
        "race": rng.choice(["A", "B", "Black"], n).tolist(),
        "ident": [f"{i:05d}" for i in rng.integers(0, n // 2, n)],
    }
    for a in ATTRS:
        for r in rng.choice(n, n // 50, replace=False):
            cols[a][r] = None
    return cols


@settings(max_examples=40, deadline=None)
@given(data=st.data())
def test_masks_sharing_kept_counts_and_partial_partners_match_the_reference(data):
    index = _near_misses_index()
    i, j = data.draw(st.integers(0, index.n - 1)), data.draw(st.integers(0, index.n - 1))
    mine, theirs = values(index, i), values(index, j)
    markers = {a: Marker.between(mine[a], theirs[a]) for a in ATTRS}
    markers["name"] = Marker(Relation.IDENTICAL)  # a near miss: the same last name
    shown = data.draw(st.sampled_from(ATTRS))
    row = {shown: Evidence.full(mine[shown], category=shown == "race")}
    if mine[shown] is None:
        row = {}
    partner = {a: Evidence.masked(theirs[a]) for a in ATTRS}
    if data.draw(st.booleans()) and theirs["race"] is not None:  # a partner beside a reveal
        partner["race"] = Evidence.full(theirs["race"], category=True)
    knobs = [
        mock.patch.object(pair_masks, "_WHOLE_MIN", 0),
        mock.patch.object(pair_search, "_KEEP", data.draw(st.sampled_from([0, 1, 4]))),
        mock.patch.object(pair_masks, "_MINORITY", data.draw(st.sampled_from([0, 8]))),
    ]
    for knob in knobs:
        knob.start()
    try:
        assert_count_pair_exact(row, partner, markers, index)
    finally:
        for knob in knobs:
            knob.stop()


@settings(max_examples=40, deadline=None)
@given(data=st.data())
def test_a_partners_identical_values_filter_the_rows_and_leave_it_masked(data):
    """A partner agreeing with r on an identical attribute has r's value there, so it meets
    the partner's constraint on it iff r does: exact whatever each side shows of it (the
    row's own constraint intersected with the partner's), and the partner counted is the
    masked one (no partner state holds the disclosed identical attribute)."""
    index = AnonymityIndex.build(_near_misses(), KINDS)
    i, j = data.draw(st.integers(0, index.n - 1)), data.draw(st.integers(0, index.n - 1))
    mine, theirs = values(index, i), values(index, j)
    markers = {a: Marker.between(mine[a], theirs[a]) for a in ATTRS}
    markers["name"] = Marker(Relation.IDENTICAL)  # a near miss: the same last name
    partner = {a: data.draw(cell(theirs[a], a)) for a in ATTRS}
    row = {a: data.draw(cell(mine[a], a)) for a in ATTRS}
    with mock.patch.object(pair_masks, "_WHOLE_MIN", 0):
        assert_count_pair_exact(row, partner, markers, index)
    identical = {a for a, m in markers.items() if m.relation is Relation.IDENTICAL}
    for _care, _want, shown in index.pair_partners:
        assert not {a for a, _ in shown} & identical


_INDEX: list[AnonymityIndex] = []


def _near_misses_index() -> AnonymityIndex:
    if not _INDEX:  # built once: masks and kept counts carry over between examples
        _INDEX.append(AnonymityIndex.build(_near_misses(), KINDS))
    return _INDEX[0]


def test_a_pages_masks_gather_the_identical_attributes_counts_once():
    index = AnonymityIndex.build(_near_misses(), KINDS)
    tables = index.pair_tables
    assert "name" in tables.heavy and "race" in tables.heavy
    row = {"race": Evidence.full("A", category=True)}
    plain = {"name": Marker(Relation.IDENTICAL), "ident": Marker(Relation.DIFFERENT)}
    made = []
    with (
        mock.patch.object(pair_masks, "_WHOLE_MIN", 0),
        mock.patch.object(pair_search, "_BY_CODE", 0),
    ):
        for race in (Relation.DIFFERENT, Relation.IDENTICAL):
            markers = {**plain, "race": Marker(race)}
            expected = count_pair_reference(row, {}, markers, "left", index, index)
            assert count_pair(row, {}, markers, "left", index, index) == expected
            made.append(set(tables.kept))
    assert frozenset({"name"}) in made[0] and made[0] <= made[1]  # the second mask reused it
