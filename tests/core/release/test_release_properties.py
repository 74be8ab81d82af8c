"""Properties of the release-risk measures, over random small tables (hypothesis).

- Adding a quasi-identifier refines the classes, so k and distinct l never increase; under
  ``exclude`` only while the added QI has no missing value (a record it leaves out may have
  been the smallest class: ARX's convention can then raise k, see docs/release-risk.md).
  Entropy l never increases on a refinement (entropy is concave: a class's entropy is at least
  the smallest entropy of its parts), so it is checked on tables without missing values.
- ARX's attacker models are ordered: prosecutor >= journalist >= marketer (F >= f), with a
  population size or a population table (a superset of the sample).
"""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from app.core.release import assess_release, build_classes, population_sizes, sample_risk

_ROWS = st.integers(min_value=1, max_value=30)


@st.composite
def tables(draw, missing: bool):
    n = draw(_ROWS)
    cell = st.sampled_from(["a", "b", "c", "*"] if missing else ["a", "b", "c"])
    return {
        "q1": draw(st.lists(cell, min_size=n, max_size=n)),
        "q2": draw(st.lists(cell, min_size=n, max_size=n)),
        "q3": draw(st.lists(st.sampled_from(["x", "y"]), min_size=n, max_size=n)),
        "s": draw(st.lists(st.sampled_from(["u", "v", "w"]), min_size=n, max_size=n)),
    }


def _measures(table, qi, convention):
    r = assess_release(table, qi, ["s"], convention=convention)
    d = r.diversity[0]
    return r.sample.k, d.l_distinct, d.l_entropy


@settings(max_examples=60, deadline=None)
@given(tables(missing=True))
def test_wildcard_k_and_l_never_increase_when_a_qi_is_added(table):
    k1, l1, _ = _measures(table, ["q1"], "wildcard")
    k2, l2, _ = _measures(table, ["q1", "q2"], "wildcard")
    assert k2 <= k1 and l2 <= l1


@settings(max_examples=60, deadline=None)
@given(tables(missing=True))
def test_exclude_k_and_l_never_increase_when_a_complete_qi_is_added(table):
    k1, l1, _ = _measures(table, ["q1", "q2"], "exclude")
    k2, l2, _ = _measures(table, ["q1", "q2", "q3"], "exclude")  # q3 is never missing
    if k1:  # some record is in a class
        assert k2 <= k1 and l2 <= l1


@settings(max_examples=60, deadline=None)
@given(tables(missing=False), st.sampled_from(["exclude", "wildcard"]))
def test_entropy_l_never_increases_on_a_refinement(table, convention):
    *_, e1 = _measures(table, ["q1"], convention)
    *_, e2 = _measures(table, ["q1", "q2"], convention)
    assert e2 <= e1 + 1e-9


@settings(max_examples=60, deadline=None)
@given(
    tables(missing=True),
    st.sampled_from(["exclude", "wildcard"]),
    st.floats(min_value=1.0, max_value=1000.0),
    st.floats(min_value=0.01, max_value=1.0),
)
def test_prosecutor_at_least_journalist_at_least_marketer(table, convention, scale, t):
    classes = build_classes(table, ["q1", "q2"], convention=convention)
    if not classes.included:
        return
    r = sample_risk(classes, threshold=t, population=classes.included * scale, scaled=True)
    p, j = r.prosecutor, r.journalist
    assert p.average >= j.average - 1e-12 and j.average >= r.marketer - 1e-12
    assert p.highest >= j.highest - 1e-12 and p.records_at_risk >= j.records_at_risk
    assert p.lowest >= j.lowest - 1e-12


@settings(max_examples=60, deadline=None)
@given(tables(missing=True), tables(missing=True), st.sampled_from(["exclude", "wildcard"]))
def test_the_order_holds_with_a_population_table(table, extra, convention):
    classes = build_classes(table, ["q1", "q2"], convention=convention)
    if not classes.included:
        return
    superset = {name: table[name] + extra[name] for name in ("q1", "q2")}
    sizes = population_sizes(classes, superset)
    r = sample_risk(classes, threshold=0.3, population_sizes=sizes)
    p, j = r.prosecutor, r.journalist
    assert p.average >= j.average - 1e-12 and j.average >= r.marketer - 1e-12
    assert p.highest >= j.highest - 1e-12 and p.records_at_risk >= j.records_at_risk


@settings(max_examples=150, deadline=None)
@given(st.data())
def test_zayatz_closed_form_is_the_hypergeometric_probability(data):
    """h(1; N, j, n) in closed form (log space) equals the exact ratio of binomials."""
    from fractions import Fraction
    from math import comb

    import numpy as np

    from app.core.release._population import one_drawn

    big_n = data.draw(st.integers(min_value=1, max_value=400))
    n = data.draw(st.integers(min_value=1, max_value=big_n))
    sizes = data.draw(st.lists(st.integers(1, big_n), min_size=1, max_size=6))
    got = one_drawn(np.array(sizes), big_n, n)
    for j, value in zip(sizes, got, strict=True):
        exact = Fraction(j * comb(big_n - j, n - 1), comb(big_n, n))
        assert abs(value - float(exact)) <= 1e-12 * max(float(exact), 1e-300) + 1e-300
