"""The advisor: a function of the displayed state, worth its cost, silent when the display
suffices (docs/advice.md §4)."""

from __future__ import annotations

import random
from fractions import Fraction

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from app.core.advice import MIN_GAIN, advise, shown_pair, study_reviewer
from app.core.disclosure import AttributeType, Level, compare, next_level, normalize

KINDS = {
    "id": AttributeType.ID,
    "first": AttributeType.STRING,
    "last": AttributeType.STRING,
    "dob": AttributeType.DATE,
    "sex": AttributeType.CATEGORY,
}
LETTERS, DIGITS = "ABCDEF", "0123456789"
_VALUES = {
    "id": st.one_of(st.none(), st.text("0123", min_size=3, max_size=4)),
    "first": st.one_of(st.none(), st.text("ABCD", min_size=1, max_size=6)),
    "last": st.one_of(st.none(), st.text("ABC D", min_size=1, max_size=6).map(str.strip)),
    "dob": st.one_of(
        st.none(), st.sampled_from(["01/02/1960", "02/01/1960", "01/02/1906", "03/04/1971"])
    ),
    "sex": st.one_of(st.none(), st.sampled_from(["M", "F"])),
}


@st.composite
def displayed_pairs(draw):
    """Two records, a level per cell (each reachable) and a cost per cell with a next level."""
    values = [{a: draw(_VALUES[a]) for a in KINDS} for _ in (0, 1)]
    values = [{a: normalize(KINDS[a], v) for a, v in row.items()} for row in values]
    comparisons = {a: compare(k, values[0][a], values[1][a]) for a, k in KINDS.items()}
    levels, costs = {}, {}
    for a, cmp in comparisons.items():
        for row in (0, 1):
            chain = [Level.MASKED]
            while (following := next_level(cmp, row, chain[-1])) is not None:
                chain.append(following)
            levels[row, a] = draw(st.sampled_from(chain))
            if next_level(cmp, row, levels[row, a]) is not None:
                costs[row, a] = Fraction(draw(st.integers(0, 50)), 1000)
    return values, comparisons, levels, costs, draw(st.randoms(use_true_random=False))


def _relabelled(values, comparisons, levels, rng: random.Random):
    """The same pair with every character the display hides replaced by a bijection that
    keeps the characters it shows (so equalities, hence alignments and marks, are kept)."""
    shown = shown_pair(comparisons, levels)
    kept = {c for a in shown.attributes for s in a.sides for _, c in s.known}
    mapping = {}
    for alphabet in (LETTERS + " ", DIGITS):
        free = [c for c in alphabet if c not in kept and c != " "]
        shuffled = free[:]
        rng.shuffle(shuffled)
        mapping.update(zip(free, shuffled, strict=True))
    out = []
    for row in values:
        out.append(
            {
                a: v
                if v is None or KINDS[a] in (AttributeType.DATE, AttributeType.CATEGORY)
                else "".join(mapping.get(c, c) for c in v)
                for a, v in row.items()
            }
        )
    return out, {a: compare(k, out[0][a], out[1][a]) for a, k in KINDS.items()}


@pytest.fixture(scope="module")
def reviewers(request):
    from app.core.advice.study import stored

    fitted = stored.load()
    return fitted.world, [study_reviewer(n, fitted) for n in ("human", "evidence")]


@settings(max_examples=150, deadline=None)
@given(displayed_pairs())
def test_two_pairs_displayed_alike_get_the_same_advice(reviewers, drawn):
    world, models = reviewers
    values, comparisons, levels, costs, rng = drawn
    other_values, other = _relabelled(values, comparisons, levels, rng)
    first, second = shown_pair(comparisons, levels), shown_pair(other, levels)
    assert first == second  # nothing hidden is part of what the page draws
    for model in models:
        assert advise(first, costs, model, world) == advise(second, costs, model, world)


@settings(max_examples=100, deadline=None)
@given(displayed_pairs())
def test_the_evidence_model_never_expects_to_lose_by_looking(reviewers, drawn):
    """The value of information of a Bayes decision is never negative."""
    world, (_human, evidence) = reviewers
    _values, comparisons, levels, costs, _rng = drawn
    advice = advise(shown_pair(comparisons, levels), costs, evidence, world, min_gain=0)
    assert all(cell.gain >= -1e-12 for cell in advice.cells)


@settings(max_examples=100, deadline=None)
@given(displayed_pairs())
def test_the_suggestion_is_the_best_affordable_step(reviewers, drawn):
    world, (human, _evidence) = reviewers
    _values, comparisons, levels, costs, _rng = drawn
    shown = shown_pair(comparisons, levels)
    advice = advise(shown, costs, human, world)
    worth = [c for c in advice.cells if c.gain >= MIN_GAIN]
    assert advice.suffices == (not worth)
    if advice.suggestion is None:
        assert not worth  # no room limit: a step worth its cost is always suggested
        return
    row, attribute = advice.suggestion
    assert levels[row, attribute] is not Level.FULL and (row, attribute) in costs
    best = max(c.per_cost for c in worth)
    chosen = next(c for c in advice.cells if (c.row, c.attribute) == advice.suggestion)
    assert chosen.per_cost == best
    broke = advise(shown, costs, human, world, room=Fraction(-1))
    assert broke.suggestion is None and not broke.suffices  # worth it, but not affordable


def test_a_masked_nickname_is_worth_opening_for_people(reviewers):
    """ALEC / ALEXANDER masked: people need to see it; the evidence model hardly does."""
    world, (human, evidence) = reviewers
    values = [
        {"id": None, "first": "ALEC", "last": "COVINGTON", "dob": "07261985", "sex": "M"},
        {
            "id": "1091236568",
            "first": "ALEXANDER",
            "last": "COVINGTON",
            "dob": "07261985",
            "sex": "M",
        },
    ]
    comparisons = {a: compare(k, values[0][a], values[1][a]) for a, k in KINDS.items()}
    costs = {(r, a): Fraction(1, 1000) for a in KINDS for r in (0, 1) if values[r][a]}
    for_people = advise(shown_pair(comparisons, {}), costs, human, world)
    assert for_people.suggestion is not None and for_people.suggestion[1] == "first"
    assert not for_people.suffices
    for_model = advise(shown_pair(comparisons, {}), costs, evidence, world)
    first = [c.gain for c in for_model.cells if c.attribute == "first"]
    assert max(first) < max(c.gain for c in for_people.cells if c.attribute == "first")
