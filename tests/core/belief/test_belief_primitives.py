"""Commonality, Möbius inversion, the disjunctive rule, conditioning, acceptability, units."""

from __future__ import annotations

import math
from fractions import Fraction
from itertools import chain, combinations

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from app.core.belief import (
    MassFunction,
    NotABeliefFunction,
    acceptability,
    bel_table,
    categorical,
    compatibility,
    condition,
    conjunctive,
    dempster,
    disjunctive,
    entropy_bits,
    entropy_nats,
    from_belief,
    intersect_candidates,
    is_compatible,
    nonspecificity_bits,
    nonspecificity_nats,
    pl_table,
    q_table,
    transfer,
    true_probability,
)
from app.core.belief._flow import edmonds_karp, max_flow

LETTERS = "abcdefghij"


def subsets(frame):
    return [
        frozenset(s)
        for s in chain.from_iterable(combinations(frame, r) for r in range(len(frame) + 1))
    ]


@st.composite
def masses(draw, max_size=5, floats=False):
    frame = tuple(LETTERS[: draw(st.integers(1, max_size))])
    elements = st.sets(st.sampled_from(frame), min_size=1).map(frozenset)
    weights = draw(st.dictionaries(elements, st.integers(1, 9), min_size=1, max_size=12))
    total = sum(weights.values())
    if floats:
        return MassFunction(frame, {s: w / total for s, w in weights.items()})
    return MassFunction(frame, {s: Fraction(w, total) for s, w in weights.items()})


@st.composite
def probability(draw, frame):
    weights = draw(st.lists(st.integers(0, 6), min_size=len(frame), max_size=len(frame)))
    assume(sum(weights) > 0)
    return {x: Fraction(w, sum(weights)) for x, w in zip(frame, weights, strict=True)}


@settings(max_examples=150, deadline=None)
@given(masses())
def test_bel_never_exceeds_pl_and_tables_match_definitions(m):
    bel, pl, q = bel_table(m), pl_table(m), q_table(m)
    for a in subsets(m.frame):
        assert bel[a] <= pl[a]
        assert bel[a] == m.bel(a) and pl[a] == m.pl(a) and q[a] == m.q(a)


@settings(max_examples=150, deadline=None)
@given(masses())
def test_q_is_consistent_with_m(m):
    """``q(A) = Σ_{B ⊇ A} m(B)``, and m comes back by the superset Möbius inversion."""
    q = q_table(m)
    assert q[frozenset()] == 1
    for a in subsets(m.frame):
        back = sum(
            ((-1) ** len(b - a) * q[b] for b in subsets(m.frame) if a <= b), Fraction(0)
        )  # fmt: skip
        assert back == m.mass(a)


@settings(max_examples=150, deadline=None)
@given(masses())
def test_mobius_round_trip(m):
    assert from_belief(m.frame, bel_table(m)) == m


@settings(max_examples=50, deadline=None)
@given(masses(floats=True))
def test_mobius_round_trip_with_floats(m):
    back = from_belief(m.frame, bel_table(m))
    assert set(back.focal) == set(m.focal)
    assert all(math.isclose(back.mass(b), v, abs_tol=1e-9) for b, v in m.focal.items())


@pytest.mark.parametrize(
    ("table", "message"),
    [
        ({"a": Fraction(2, 3), "b": Fraction(2, 3), "ab": 1}, "Möbius mass of {a, b} is -1/3"),
        ({"a": 0, "b": 0, "ab": Fraction(1, 2)}, "whole frame"),
        ({"a": 0, "ab": 1}, "no Bel{b}"),
        ({(): Fraction(1, 9), "a": 0, "b": 0, "ab": 1}, "Bel\\(∅\\)"),
        ({"a": "x", "b": 0, "ab": 1}, "not a number"),
    ],
)
def test_from_belief_rejects_a_table_that_is_not_a_belief_function(table, message):
    table = {frozenset(k): v for k, v in table.items()}
    with pytest.raises(NotABeliefFunction, match=message):
        from_belief("ab", table)


def test_from_belief_rejects_a_monotone_but_not_totally_monotone_table():
    """Monotone and 2-monotone yet not a belief function: m({a,b,c}) = −1/2."""
    half = Fraction(1, 2)
    table = {s: (0 if len(s) < 2 else half if len(s) == 2 else 1) for s in subsets("abc")}
    with pytest.raises(NotABeliefFunction, match=r"\{a, b, c\} is -1/2"):
        from_belief("abc", table)


@settings(max_examples=100, deadline=None)
@given(masses(max_size=4), st.data())
def test_disjunctive_rule_is_the_product_of_beliefs(m1, data):
    m2 = data.draw(masses(max_size=len(m1.frame)).filter(lambda m: m.frame == m1.frame))
    joint = disjunctive(m1, m2)
    for a in subsets(m1.frame):
        assert joint.bel(a) == m1.bel(a) * m2.bel(a)
    assert nonspecificity_bits(joint) >= min(nonspecificity_bits(m1), nonspecificity_bits(m2))


def test_condition_is_dempster_with_the_categorical_set():
    frame = ("a", "b", "c")
    m = MassFunction.of(
        frame, {"a": Fraction(1, 2), ("b", "c"): Fraction(1, 4), frame: Fraction(1, 4)}
    )
    assert condition(m, ("b", "c")).mass(("b", "c")) == 1
    assert condition(m, ("a", "b")) == dempster(m, categorical(frame, ("a", "b"))).mass
    given_ab = condition(m, ("a", "b"))
    assert (given_ab.mass("a"), given_ab.mass("b")) == (Fraction(1, 2), Fraction(1, 4))
    # Shafer: Bel(A | B) = (Bel(A ∪ B̄) − Bel(B̄)) / (1 − Bel(B̄))
    for a in subsets(frame):
        expected = (m.bel(a | {"c"}) - m.bel({"c"})) / (1 - m.bel({"c"}))
        assert given_ab.bel(a & {"a", "b"}) == expected
    with pytest.raises(ValueError, match="Pl\\(B\\) = 0"):
        condition(categorical(frame, "a"), ("b", "c"))
    with pytest.raises(ValueError, match="empty set"):
        condition(m, ())


def test_acceptability_of_dempster_and_of_candidate_intersection():
    """Spec §3: Dempster of m({a}) = m({a,b}) = 1/2 with itself is not acceptable."""
    m = MassFunction.of("ab", {"a": Fraction(1, 2), ("a", "b"): Fraction(1, 2)})
    p = {"a": Fraction(1, 2), "b": Fraction(1, 2)}
    verdict = acceptability(m, m, dempster(m, m).mass, p)
    assert verdict.inputs_compatible and verdict.nonspecificity_ok
    assert not verdict.acceptable and verdict.compatibility.violation == Fraction(1, 4)
    frame = tuple("abcde")
    truth = true_probability(frame, tuple("ab"))
    c1, c2 = categorical(frame, tuple("abc")), categorical(frame, tuple("abd"))
    verdict = acceptability(c1, c2, intersect_candidates(frame, tuple("abc"), tuple("abd")), truth)
    assert verdict.acceptable and verdict.nonspecificity == 1.0
    assert not acceptability(c1, c2, disjunctive(c1, c2), truth).acceptable  # N rises


def test_entropy_and_nonspecificity_units():
    p = {"a": Fraction(1, 2), "b": Fraction(1, 4), "c": Fraction(1, 4)}
    assert entropy_bits(p) == pytest.approx(1.5)
    assert entropy_nats(p) == pytest.approx(1.5 * math.log(2))
    m = categorical("abcdefgh", tuple("abcdefgh"))
    assert nonspecificity_bits(m) == pytest.approx(3.0)
    assert nonspecificity_nats(m) == pytest.approx(math.log(8))


def brute_violation(m, p):
    return max(m.bel(a) - sum(p.get(x, 0) for x in a) for a in subsets(m.frame))


@settings(max_examples=120, deadline=None)
@given(masses(max_size=10), st.data())
def test_max_flow_compatibility_equals_brute_force_up_to_ten_elements(m, data):
    p = data.draw(probability(m.frame))
    result = compatibility(m, p)
    assert result.violation == brute_violation(m, p)
    assert m.bel(result.witness) - sum(p[x] for x in result.witness) == result.violation
    assert result.compatible == (brute_violation(m, p) <= 0) == is_compatible(m, p)


@settings(max_examples=150, deadline=None)
@given(st.data())
def test_dinic_equals_edmonds_karp(data):
    n = data.draw(st.integers(1, 12))
    sets = data.draw(st.lists(st.lists(st.integers(0, n - 1), min_size=1, unique=True), max_size=8))
    masses_ = data.draw(st.lists(st.integers(0, 20), min_size=len(sets), max_size=len(sets)))
    caps = data.draw(st.lists(st.integers(0, 20), min_size=n, max_size=n))
    flow, reached = max_flow(masses_, sets, caps)
    reference, _ = edmonds_karp(masses_, sets, caps)
    assert flow == reference
    # the reached elements are a minimum cut: flow = Σ m outside + Σ cap inside
    inside = {i for i, s in enumerate(sets) if set(s) <= reached}
    cut = sum(masses_[i] for i in range(len(sets)) if i not in inside) + sum(
        caps[j] for j in reached
    )
    assert cut == flow


@settings(max_examples=150, deadline=None)
@given(masses(max_size=6), st.data())
def test_nonspecificity_is_monotone_under_transfer_to_a_subset(m, data):
    source = data.draw(st.sampled_from(sorted(m.focal, key=sorted)))
    target = data.draw(st.sets(st.sampled_from(sorted(source)), min_size=1))
    delta = data.draw(st.fractions(0, 1)) * m.mass(source)
    moved = transfer(m, source, target, delta)
    assert nonspecificity_bits(moved) <= nonspecificity_bits(m) + 1e-12  # Proposition 26
    assert nonspecificity_nats(moved) <= nonspecificity_nats(m) + 1e-12


@settings(max_examples=100, deadline=None)
@given(masses(max_size=6))
def test_pignistic_sums_to_one(m):
    assert sum(m.pignistic().values()) == 1


def test_conjunctive_acceptability_counts_conflict():
    m1, m2 = categorical("ab", "a"), categorical("ab", "b")
    joint = conjunctive(m1, m2)
    assert joint.conflict == 1
    verdict = acceptability(m1, m2, joint, {"a": Fraction(1, 2), "b": Fraction(1, 2)})
    assert not verdict.inputs_compatible
