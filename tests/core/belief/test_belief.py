"""Belief functions for re-identification (Torra & Stokes, spec §3)."""

from __future__ import annotations

import math
from fractions import Fraction
from itertools import chain, combinations

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from app.core.belief import (
    MassFunction,
    belief_entropy,
    candidate_set_belief,
    categorical,
    compatibility,
    conjunctive,
    dempster,
    entropy,
    intersect_candidates,
    is_compatible,
    nonspecificity,
    transfer,
    true_probability,
    vacuous,
)
from app.core.belief.examples import (
    example_21_mask,
    example_21_true_probability,
    example_23,
    example_24,
    proposition_19_belief,
)

FRAME = ("a", "b", "c", "d", "e")


def subsets(frame):
    return [
        frozenset(s)
        for s in chain.from_iterable(combinations(frame, r) for r in range(len(frame) + 1))
    ]


@st.composite
def masses(draw, frame=None):
    frame = frame or FRAME[: draw(st.integers(1, len(FRAME)))]
    nonempty = [s for s in subsets(frame) if s]
    weights = draw(st.dictionaries(st.sampled_from(nonempty), st.integers(1, 9), min_size=1))
    total = sum(weights.values())
    return MassFunction(frame, {s: Fraction(w, total) for s, w in weights.items()})


@st.composite
def same_frame(draw, count: int):
    frame = FRAME[: draw(st.integers(1, 4))]
    return [draw(masses(frame=frame)) for _ in range(count)]


@st.composite
def probabilities(draw, frame):
    weights = draw(st.lists(st.integers(0, 6), min_size=len(frame), max_size=len(frame)))
    assume(sum(weights) > 0)
    return {x: Fraction(w, sum(weights)) for x, w in zip(frame, weights, strict=True)}


@settings(deadline=None)
@given(masses())
def test_bel_pl_boundaries(m):
    frame = m.frame
    assert m.bel(()) == 0 and m.pl(()) == 0
    assert m.bel(frame) == 1 and m.pl(frame) == 1
    for a in subsets(frame):
        assert m.bel(a) <= m.pl(a)
        assert m.pl(a) == 1 - m.bel(frozenset(frame) - a)


@settings(deadline=None)
@given(masses(), st.data())
def test_bel_monotone_and_superadditive(m, data):
    all_sets = subsets(m.frame)
    a = data.draw(st.sampled_from(all_sets))
    b = data.draw(st.sampled_from(all_sets))
    if a <= b:
        assert m.bel(a) <= m.bel(b)
    assert m.bel(a | b) >= m.bel(a) + m.bel(b) - m.bel(a & b)  # eq. (1), n = 2
    if not a & b:
        assert m.bel(a | b) >= m.bel(a) + m.bel(b)


@settings(deadline=None)
@given(masses())
def test_pignistic_is_a_probability_between_bel_and_pl(m):
    p = m.pignistic()
    assert sum(p.values()) == 1 and all(v >= 0 for v in p.values())
    for a in subsets(m.frame):
        assert m.bel(a) <= sum(p[x] for x in a) <= m.pl(a)


def brute_violation(m, p):
    return max(m.bel(a) - sum(p.get(x, 0) for x in a) for a in subsets(m.frame))


@settings(max_examples=200, deadline=None)
@given(masses(), st.data())
def test_max_flow_agrees_with_enumeration(m, data):
    p = data.draw(probabilities(m.frame))
    result = compatibility(m, p)
    assert result.violation == brute_violation(m, p)
    witness = result.witness
    assert m.bel(witness) - sum(p[x] for x in witness) == result.violation
    assert result.compatible == (result.violation == 0) == is_compatible(m, p)


def test_compatibility_with_floats():
    m = MassFunction.of("ab", {"a": 0.5, ("a", "b"): 0.5})
    assert is_compatible(m, {"a": 0.5, "b": 0.5})
    assert compatibility(m, {"a": 0.25, "b": 0.75}).violation == pytest.approx(0.25)


@settings(deadline=None)
@given(same_frame(2))
def test_dempster_commutes(pair):
    m1, m2 = pair
    try:
        left = dempster(m1, m2)
    except ValueError:
        assume(False)
    assert left == dempster(m2, m1)


@settings(max_examples=100, deadline=None)
@given(same_frame(3))
def test_dempster_is_associative(triple):
    m1, m2, m3 = triple
    try:
        left = dempster(dempster(m1, m2).mass, m3).mass
        right = dempster(m1, dempster(m2, m3).mass).mass
    except ValueError:
        assume(False)
    assert left == right


def test_dempster_reports_conflict_and_total_conflict():
    m1 = MassFunction.of("ab", {"a": Fraction(1, 2), ("a", "b"): Fraction(1, 2)})
    m2 = MassFunction.of("ab", {"b": Fraction(1, 2), ("a", "b"): Fraction(1, 2)})
    combined = dempster(m1, m2)
    assert combined.conflict == Fraction(1, 4)
    assert combined.mass.mass("a") == Fraction(1, 3) and combined.mass.mass("ab") == 0
    assert conjunctive(m1, m2).conflict == Fraction(1, 4)
    with pytest.raises(ValueError, match="total conflict"):
        dempster(categorical("ab", "a"), categorical("ab", "b"))


def test_dempster_is_not_acceptable():
    """Spec §3: m({a}) = m({a,b}) = 1/2 is compatible with P, its self-combination is not."""
    m = MassFunction.of("ab", {"a": Fraction(1, 2), ("a", "b"): Fraction(1, 2)})
    p = {"a": Fraction(1, 2), "b": Fraction(1, 2)}
    assert is_compatible(m, p)
    combined = dempster(m, m).mass
    assert combined.bel("a") == Fraction(3, 4) > p["a"]
    result = compatibility(combined, p)
    assert result.violation == Fraction(1, 4) and result.witness == {"a"}


@settings(deadline=None)
@given(st.data())
def test_intersecting_candidate_sets_is_acceptable(data):
    frame = FRAME
    truth = data.draw(st.sets(st.sampled_from(frame), min_size=1))
    p = true_probability(frame, truth)
    extra = st.sets(st.sampled_from(frame))
    sets = [truth | data.draw(extra) for _ in range(data.draw(st.integers(1, 4)))]
    beliefs = [candidate_set_belief(frame, s) for s in sets]
    assert all(is_compatible(b, p) for b in beliefs)  # Proposition 12
    combined = intersect_candidates(frame, *sets)
    assert is_compatible(combined, p)
    assert nonspecificity(combined) <= min(map(nonspecificity, beliefs))  # Definition 27


def test_missing_a_candidate_is_incompatible():
    """Lemma 13: a categorical set that misses a true candidate breaks compatibility."""
    p = true_probability(FRAME, {"a", "b"})
    assert compatibility(categorical(FRAME, {"a", "c"}), p).violation == Fraction(1, 2)
    with pytest.raises(ValueError, match="no record in common"):
        intersect_candidates(FRAME, {"a"}, {"b"})


@settings(deadline=None)
@given(masses(), st.data())
def test_transfer_lowers_nonspecificity(m, data):
    source = data.draw(st.sampled_from(sorted(m.focal, key=sorted)))
    target = data.draw(st.sets(st.sampled_from(sorted(source)), min_size=1))
    delta = data.draw(st.fractions(0, 1)) * m.mass(source)
    moved = transfer(m, source, target, delta)
    expected = nonspecificity(m) + float(delta) * (math.log2(len(target)) - math.log2(len(source)))
    assert nonspecificity(moved) == pytest.approx(expected, abs=1e-12)
    assert nonspecificity(moved) <= nonspecificity(m) + 1e-12  # Proposition 26


def test_example_23_corrected():
    m, moved = example_23()
    assert m.mass(m.frame[:5]) == Fraction(5, 13) and m.mass(m.frame) == Fraction(8, 13)
    assert moved.mass(("x1", "x2")) == Fraction(4, 13) and moved.mass(m.frame) == Fraction(4, 13)
    p, q = m.pignistic(), moved.pignistic()
    assert p["x1"] == Fraction(2, 13) and p["x6"] == Fraction(1, 13)
    assert q["x1"] == q["x2"] == Fraction(7, 26)  # the paper prints 0.15384617
    assert q["x3"] == Fraction(3, 26) and q["x8"] == Fraction(1, 26)
    assert belief_entropy(m) == pytest.approx(2.0317593, abs=1e-7)
    assert belief_entropy(moved) == pytest.approx(1.8300099, abs=1e-7)
    assert nonspecificity(moved) < nonspecificity(m)


def test_example_24_corrected():
    m, moved = example_24()
    assert m.mass(m.frame) == Fraction(5, 6) and m.mass(("x1", "x2")) == Fraction(1, 6)
    q = moved.pignistic()
    assert q["x1"] == Fraction(1, 12) and q["x3"] == Fraction(5, 48)
    # the printed values come from truncated masses, hence 1e-6
    assert belief_entropy(m) == pytest.approx(2.2538579, abs=1e-6)
    assert belief_entropy(moved) == pytest.approx(2.2989538, abs=1e-6)
    assert belief_entropy(moved) > belief_entropy(m)  # entropy is not monotone
    assert nonspecificity(moved) < nonspecificity(m)  # non-specificity is


def test_proposition_19_and_example_21():
    records = [(0, 0, 0), (1, 0, 0), (0, 1, 0), (0, 0, 1)]
    x0, *candidates = records
    assert example_21_mask((1, 0, 0), 1, 1) == (0, 0, 0)
    p = example_21_true_probability((0, 0, 0), records, alpha=1)
    assert p == {x0: 0, **{x: Fraction(1, 3) for x in candidates}}
    m = proposition_19_belief(records, candidates, x0)
    assert is_compatible(m, p)
    pignistic = m.pignistic()
    assert max(pignistic, key=pignistic.get) == x0 and pignistic[x0] == Fraction(1, 2)
    unknown = example_21_true_probability((0, 0, 0), records)
    assert unknown[x0] == Fraction(1, 2) and unknown[(1, 0, 0)] == Fraction(1, 6)


def test_vacuous_and_bayesian():
    assert nonspecificity(vacuous("abcd")) == 2.0
    bayes = MassFunction.of("ab", {"a": Fraction(1, 4), "b": Fraction(3, 4)})
    assert bayes.is_bayesian() and nonspecificity(bayes) == 0
    assert entropy({"a": 1}) == 0.0 and entropy({"a": 0.5, "b": 0.5}) == pytest.approx(math.log(2))


@pytest.mark.parametrize(
    ("focal", "message"),
    [
        ({"a": Fraction(1, 2)}, "sum to 1/2"),
        ({"a": Fraction(3, 2), "b": Fraction(-1, 2)}, ">= 0"),
        ({"z": 1}, "not a subset"),
        ({"a": 0.6, "b": 0.3}, "not 1"),
    ],
)
def test_validation(focal, message):
    with pytest.raises(ValueError, match=message):
        MassFunction.of("ab", focal)


def test_exact_sum_is_exact():
    MassFunction.of("abc", {"a": Fraction(1, 3), "b": Fraction(1, 3), "c": Fraction(1, 3)})
    MassFunction.of("abc", {"a": 1 / 3, "b": 1 / 3, "c": 1 / 3})
    with pytest.raises(ValueError):
        MassFunction.of("ab", {"a": Fraction(1, 3), "b": Fraction(2, 3) + Fraction(1, 10**12)})
