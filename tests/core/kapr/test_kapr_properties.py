"""Properties of KAPR (paper §4.4) on random small datasets, both evidence models."""

from __future__ import annotations

from fractions import Fraction

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from app.core.disclosure import Level
from app.core.kapr import (
    AnonymityIndex,
    Evidence,
    PairView,
    assess_pair,
    disclosure_state,
    kapr,
    kapr_score,
    next_costs,
    pair_risk,
    reveal_cost,
    state_norm,
)
from tests.core.kapr_data import ATTRS, KINDS, brute_pair_risk, columns, display, levels

MODELS = pytest.mark.parametrize("model", ["row", "pair"])
D = len(ATTRS)
fractions = st.fractions(min_value=-3, max_value=3, max_denominator=12)


def matrices(rows: int, cols: int):
    return st.lists(st.lists(fractions, min_size=cols, max_size=cols), min_size=rows, max_size=rows)


@st.composite
def matrix_pairs(draw):
    n, d = draw(st.integers(1, 4)), draw(st.integers(1, 4))
    return draw(matrices(n, d)), draw(matrices(n, d)), draw(fractions)


@given(matrix_pairs(), st.integers(1, 3))
def test_state_norm_is_a_norm(matrices_and_scalar, kappa):
    x, y, a = matrices_and_scalar
    nx, ny = state_norm(x, kappa), state_norm(y, kappa)
    assert nx >= 0
    assert (nx == 0) == all(v == 0 for r in x for v in r)
    assert state_norm([[a * v for v in r] for r in x], kappa) == abs(a) * nx
    summed = [[u + v for u, v in zip(r, s, strict=True)] for r, s in zip(x, y, strict=True)]
    assert state_norm(summed, kappa) <= nx + ny


def _setup(data, two_sources, truth=False):
    left = AnonymityIndex.build(data.draw(columns()), KINDS)
    right = AnonymityIndex.build(data.draw(columns()), KINDS) if two_sources else left
    return left, right, data.draw(display(left, right, truth=truth))


def _score(pairs, left, right, model, kappa=1):
    risks = [assess_pair(p.left, p.right, p.markers, left, right, model) for p in pairs]
    return kapr_score(risks, kappa, 2 * len(pairs), D)


@MODELS
@settings(max_examples=60, deadline=None)
@given(data=st.data(), two_sources=st.booleans())
def test_score_matches_brute_force_and_state(model, data, two_sources):
    left, right, pairs = _setup(data, two_sources)
    expected = kapr([brute_pair_risk(p, left, right, model) for p in pairs], 1, 2 * len(pairs), D)
    assert _score(pairs, left, right, model).value == expected
    assert state_norm(disclosure_state(pairs, ATTRS, left, right, model), 1) == expected


@MODELS
@settings(max_examples=60, deadline=None)
@given(data=st.data(), two_sources=st.booleans())
def test_within_unit_interval_when_every_k_reaches_kappa(model, data, two_sources):
    left, right, pairs = _setup(data, two_sources)
    base = _score(pairs, left, right, model)
    kappa = base.min_k or 1
    result = _score(pairs, left, right, model, kappa)
    assert result.within_bound
    assert 0 <= result.value <= 1
    assert not _score(pairs, left, right, model, kappa + 1).within_bound or base.min_k is None


def _refine(data, pair: PairView, records, left, right):
    """Draw one cell of ``pair`` and a strictly finer evidence for it (or None)."""
    side = data.draw(st.sampled_from(["left", "right"]))
    attribute = data.draw(st.sampled_from(ATTRS))
    index, record = (left, records[0]) if side == "left" else (right, records[1])
    current = pair.row(side)[attribute]
    chain = levels(index.value(attribute, record), attribute)
    finer = [ev for ev in chain if ev.refines(current) and ev != current]
    if not finer:
        return None
    return side, attribute, data.draw(st.sampled_from(finer))


@MODELS
@settings(max_examples=60, deadline=None)
@given(data=st.data(), two_sources=st.booleans())
def test_monotone_and_one_pair_and_preview_is_charge(model, data, two_sources):
    left, right, (pairs, records) = _setup(data, two_sources, truth=True)
    number = data.draw(st.integers(0, len(pairs) - 1))
    step = _refine(data, pairs[number], records[number], left, right)
    if step is None:
        return
    side, attribute, evidence = step
    after = list(pairs)
    after[number] = pairs[number].with_cell(side, attribute, evidence)
    before_k, after_k = (_score(p, left, right, model).value for p in (pairs, after))
    assert after_k >= before_k  # Property 4.4
    scale = dict(kappa=1, n_rows=2 * len(pairs), n_attributes=D)
    charge = reveal_cost(
        pairs[number], side, attribute, evidence, left, right, **scale, model=model
    )
    assert after_k - before_k == charge  # only this pair's term changed

    def next_evidence(n, s, a):
        return evidence if (n, s, a) == (number, side, attribute) else None

    preview = next_costs(pairs, next_evidence, left, right, **scale, model=model)
    assert preview == {(number, side, attribute): charge}


@MODELS
@settings(max_examples=40, deadline=None)
@given(data=st.data(), two_sources=st.booleans())
def test_independent_of_reveal_order(model, data, two_sources):
    left, right, pairs = _setup(data, two_sources)
    cells = [(n, s, a) for n in range(len(pairs)) for s in ("left", "right") for a in ATTRS]
    order = data.draw(st.permutations(cells))
    scale = dict(kappa=1, n_rows=2 * len(pairs), n_attributes=D)
    state = [PairView(_masked(p.left), _masked(p.right), p.markers) for p in pairs]
    total = Fraction(0)
    for n, s, a in order:
        target = pairs[n].row(s)[a]
        total += reveal_cost(state[n], s, a, target, left, right, **scale, model=model)
        state[n] = state[n].with_cell(s, a, target)
    assert total == _score(pairs, left, right, model).value
    risks = [pair_risk(p.left, p.right, p.markers, left, right, model) for p in pairs]
    assert total == kapr(risks, 1, 2 * len(pairs), D)


def _masked(row) -> dict[str, Evidence]:
    return {a: Evidence(Level.MASKED, ev.total) for a, ev in row.items()}
