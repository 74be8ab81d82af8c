"""A synthetic check's rows counted as a record of the source standing in for another."""

from __future__ import annotations

from fractions import Fraction

from hypothesis import given, settings
from hypothesis import strategies as st

from app.core.kapr import AnonymityIndex, Evidence, PairCosts, PairView
from app.core.quality import stand_in
from tests.core.kapr_data import ATTRS, KINDS, brute_candidates, cell, columns, values


def _expected_k(index: AnonymityIndex, evidence: dict) -> int:
    """The definition: the real records consistent with the row and the check itself, at most
    the source's size; all of them while nothing is disclosed."""
    disclosed = any(ev.level.value != "masked" for ev in evidence.values())
    if not disclosed:
        return index.n
    return min(index.n, len(brute_candidates(index, evidence)) + 1)


@settings(max_examples=60, deadline=None)
@given(data=st.data(), cols=columns(), other=columns())
def test_stand_in_counts_itself_among_the_real_records(data, cols, other):
    index = AnonymityIndex.build(cols, KINDS)
    synthetic = values(AnonymityIndex.build(other, KINDS), data.draw(st.integers(0, 1)))
    evidence = {a: data.draw(cell(synthetic[a], a)) for a in ATTRS}
    standing = stand_in(index)
    assert standing.count(evidence) == _expected_k(index, evidence)
    # the count of the row model's own path (its candidates, refined one cell at a time)
    risk = PairCosts(PairView(evidence, evidence), (standing, standing), "row").risk()
    if any(ev.p for ev in evidence.values()):
        assert risk.k[0] == _expected_k(index, evidence)
    assert stand_in(index) is standing  # one per index: its counts are kept with it


@settings(max_examples=60, deadline=None)
@given(data=st.data(), cols=columns(), other=columns())
def test_a_stand_in_reveal_costs_what_its_counts_say(data, cols, other):
    """Every next reveal of a check's row is priced from ``min(n, real + 1)``, by the same
    PairCosts.delta a real row is priced with."""
    index = AnonymityIndex.build(cols, KINDS)
    synthetic = values(AnonymityIndex.build(other, KINDS), 0)
    before = {a: data.draw(cell(synthetic[a], a)) for a in ATTRS}
    attribute = data.draw(st.sampled_from(ATTRS))
    after_cell = Evidence.full(synthetic[attribute], category=KINDS[attribute].value == "category")
    after = {**before, attribute: after_cell}
    costs = PairCosts(PairView(before, before), (stand_in(index), stand_in(index)), "row")
    got = costs.delta("left", attribute, after_cell)

    def term(row):
        p = sum((ev.p for ev in row.values()), Fraction(0))
        return p / _expected_k(index, row) if p else Fraction(0)

    assert got == term(after) - term(before)


def test_value_counts_add_the_stand_in():
    index = AnonymityIndex.build({"name": ["ANN", "ANN", "BOB"]}, {"name": "string"})
    assert index.value_count("name", "ANN") == 2
    assert stand_in(index).value_count("name", "ANN") == 3
    assert stand_in(index).value_count("name", "ZED") == 1  # nobody real: unique
