"""KAPR on the paper's worked example (§4.3, Tables 2-5) and the scoring API."""

from __future__ import annotations

from fractions import Fraction
from itertools import combinations

import pytest

from app.core.disclosure import Level
from app.core.kapr import (
    AnonymityIndex,
    Evidence,
    Marker,
    PairView,
    Relation,
    assess_pair,
    kapr,
    kapr_score,
    next_costs,
    pair_risk,
    reveal_cost,
)

ATTRS = ["name", "dob", "race"]
KINDS = {"name": "string", "dob": "date", "race": "category"}
RECORDS = [
    ("Mary", "08/09/1964", "Hispanic"),
    ("Mark", "08/09/1964", "Hispanic"),
    ("Mary", "09/08/1964", "Black"),
    ("Mary", "09/08/1964", "Black"),
]
PAIRS = list(combinations(range(4), 2))


@pytest.fixture(scope="module")
def index() -> AnonymityIndex:
    return AnonymityIndex.build({a: [r[i] for r in RECORDS] for i, a in enumerate(ATTRS)}, KINDS)


def _values(index, record):
    return {a: index.value(a, record) for a in ATTRS}


def _cell(state, attribute, mine, theirs):
    if state == "masked":
        return Evidence.masked(mine)
    if state == "full":
        return Evidence.full(mine, category=attribute == "race")
    if attribute == "race" or mine == theirs:  # no partial level: stays masked
        return Evidence.masked(mine)
    return Evidence.partial(
        mine, [p for p, (a, b) in enumerate(zip(mine, theirs, strict=True)) if a != b]
    )


def paper_display(index, state: str) -> list[PairView]:
    """Return the 6 pairs of Table 3 (masked), Table 4 (partial) or Table 5 (full)."""
    pairs = []
    for i, j in PAIRS:
        v, w = _values(index, i), _values(index, j)
        pairs.append(
            PairView(
                {a: _cell(state, a, v[a], w[a]) for a in ATTRS},
                {a: _cell(state, a, w[a], v[a]) for a in ATTRS},
                {a: Marker.between(v[a], w[a]) for a in ATTRS},
            )
        )
    return pairs


def score(index, pairs, model):
    risks = [assess_pair(p.left, p.right, p.markers, index, index, model) for p in pairs]
    return kapr_score(risks, kappa=1, n_rows=12, n_attributes=3)


@pytest.mark.parametrize(
    ("state", "model", "expected"),
    [
        ("masked", "row", Fraction(0)),
        ("masked", "pair", Fraction(0)),
        ("partial", "row", Fraction(7, 108)),
        ("partial", "pair", Fraction(11, 144)),
        ("full", "row", Fraction(3, 4)),
        ("full", "pair", Fraction(3, 4)),
    ],
)
def test_paper_example(index, state, model, expected):
    result = score(index, paper_display(index, state), model)
    assert result.value == expected
    assert result.within_bound


def test_paper_partial_rows(index):
    """Table 4's displays: ***y / ***k and *8/*9/**** / *9/*8/****."""
    pair = paper_display(index, "partial")
    assert pair[0].left["name"] == Evidence(Level.PARTIAL, 4, ((3, "y"),))
    assert pair[0].right["name"].p == Fraction(1, 4)
    assert pair[1].left["dob"] == Evidence(Level.PARTIAL, 8, ((1, "8"), (3, "9")))
    row_k = [assess_pair(p.left, p.right, p.markers, index, index).k for p in pair]
    assert row_k == [(3, 1), (2, 2), (2, 2), (1, 2), (1, 2), (None, None)]
    pair_k = [assess_pair(p.left, p.right, p.markers, index, index, "pair").k for p in pair]
    assert pair_k == [(1, 1), (1, 2), (1, 2), (1, 2), (1, 2), (None, None)]


def test_paper_full_k(index):
    pairs = paper_display(index, "full")
    assert [assess_pair(p.left, p.right, p.markers, index, index).k for p in pairs] == [
        (1, 1),
        (1, 2),
        (1, 2),
        (1, 2),
        (1, 2),
        (2, 2),
    ]


@pytest.mark.parametrize("model", ["row", "pair"])
def test_reveals_from_masked_to_partial_sum_to_the_score(index, model):
    masked, partial = paper_display(index, "masked"), paper_display(index, "partial")
    total = Fraction(0)
    for number, (before, after) in enumerate(zip(masked, partial, strict=True)):
        pair = before
        for side in ("left", "right"):
            for a in ATTRS:
                ev = after.row(side)[a]
                total += reveal_cost(
                    pair, side, a, ev, index, index, kappa=1, n_rows=12, n_attributes=3, model=model
                )
                pair = pair.with_cell(side, a, ev)
        assert pair == after, number
    assert total == score(index, partial, model).value


@pytest.mark.parametrize("model", ["row", "pair"])
def test_next_costs_preview_the_full_page(index, model):
    pairs = paper_display(index, "partial")
    full = paper_display(index, "full")

    def next_evidence(number, side, attribute):
        return full[number].row(side)[attribute]

    costs = next_costs(
        pairs, next_evidence, index, index, kappa=1, n_rows=12, n_attributes=3, model=model
    )
    assert len(costs) == 6 * 2 * 3
    for (number, side, a), cost in costs.items():
        pair = pairs[number]
        after = pair.with_cell(side, a, full[number].row(side)[a])
        before_risk = pair_risk(pair.left, pair.right, pair.markers, index, index, model)
        after_risk = pair_risk(after.left, after.right, after.markers, index, index, model)
        assert cost == Fraction(1, 36) * (after_risk - before_risk)
        assert cost >= 0


def test_kappa_bound_is_reported_not_clamped(index):
    pairs = paper_display(index, "full")
    risks = [assess_pair(p.left, p.right, p.markers, index, index) for p in pairs]
    result = kapr_score(risks, kappa=2, n_rows=12, n_attributes=3)
    assert result.value == Fraction(3, 2)
    assert result.min_k == 1 and not result.within_bound
    assert kapr([r.value for r in risks], 2, 12, 3) == Fraction(3, 2)


def test_two_sources(index):
    columns = {"name": ["Mary", "Maria"], "dob": [None, "1964-08-09"], "race": ["Black"] * 2}
    other = AnonymityIndex.build(columns, KINDS)
    left = {"name": Evidence.full("Mary"), "race": Evidence.full("Black", category=True)}
    markers = {"name": Marker(Relation.IDENTICAL), "dob": Marker(Relation.MISSING, False, True)}
    assert assess_pair(left, {}, markers, index, other).k == (2, None)
    # the partner lacks a DOB, so it is record 1 of `other`; rows 3 and 4 have a DOB
    assert assess_pair(left, {}, markers, index, other, "pair").k == (2, None)
    markers = {"name": Marker(Relation.IDENTICAL), "dob": Marker(Relation.MISSING, True, False)}
    with pytest.raises(ValueError, match="matches no record"):
        assess_pair(left, {}, markers, index, other, "pair")


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"kappa": 0, "n_rows": 1, "n_attributes": 1}, "positive"),
        ({"kappa": 1, "n_rows": 0, "n_attributes": 1}, "positive"),
    ],
)
def test_invalid_scale(kwargs, message):
    with pytest.raises(ValueError, match=message):
        kapr([Fraction(1)], **kwargs)


def test_unknown_model(index):
    with pytest.raises(ValueError, match="unknown evidence model"):
        pair_risk({}, {}, {}, index, index, model="both")


@pytest.mark.parametrize(
    "make",
    [
        lambda: Evidence(Level.MASKED, 4, ((0, "M"),)),
        lambda: Evidence(Level.FULL, 4, ((0, "M"),)),
        lambda: Evidence(Level.PARTIAL, 4, ((4, "M"),)),
        lambda: Evidence(Level.PARTIAL, 4, ((0, "M"), (0, "a"))),
        lambda: Marker(Relation.MISSING),
        lambda: Marker(Relation.IDENTICAL, left_missing=True),
    ],
)
def test_invalid_evidence(make):
    with pytest.raises(ValueError):
        make()
