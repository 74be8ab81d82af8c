"""The re-identification audit of a disclosure state: the paper's example and brute force."""

from __future__ import annotations

from fractions import Fraction

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from app.core.belief import DisplayedPair, audit_state, categorical, compatibility, true_probability
from app.core.kapr import SIDES, AnonymityIndex, Evidence, Marker, assess_pair, kapr_score
from tests.core.kapr.test_kapr import PAIRS, paper_display
from tests.core.kapr.test_kapr import index as paper_index  # noqa: F401 (fixture)
from tests.core.kapr_data import ATTRS, KINDS, brute_candidates, columns, display, values

D = len(ATTRS)


def _displayed(pairs, records, left, right):
    return [
        DisplayedPair(view, truth, (left, right), number)
        for number, (view, truth) in enumerate(zip(pairs, records, strict=True))
    ]


@pytest.mark.parametrize(
    ("state", "model", "mean", "kapr"),
    [
        ("masked", "row", Fraction(1, 4), Fraction(0)),
        ("partial", "row", Fraction(41, 72), Fraction(7, 108)),
        ("full", "row", Fraction(3, 4), Fraction(3, 4)),
        ("partial", "pair", Fraction(3, 4), Fraction(11, 144)),
        ("full", "pair", Fraction(3, 4), Fraction(3, 4)),
    ],
)
def test_paper_example(paper_index, state, model, mean, kapr):  # noqa: F811
    """spec §2, all six pairs, kappa 1: under ``pair`` partial already gives full's 3/4."""
    pairs = _displayed(paper_display(paper_index, state), PAIRS, paper_index, paper_index)
    audit = audit_state(pairs, model=model, kappa=1, n_attributes=3)
    assert audit.summary.mean_true_probability == mean
    assert audit.summary.kapr == kapr
    assert audit.summary.rows == 12 and audit.summary.incompatible_rows == 0
    views = [p.view for p in pairs]
    risks = [
        assess_pair(v.left, v.right, v.markers, paper_index, paper_index, model) for v in views
    ]
    assert kapr_score(risks, 1, 12, 3).value == kapr


def test_paper_example_rows(paper_index):  # noqa: F811
    pairs = _displayed(paper_display(paper_index, "partial"), PAIRS, paper_index, paper_index)
    rows = audit_state(pairs, model="row", n_attributes=3).rows
    assert [r.ks["row"] for r in rows] == [3, 1, 2, 2, 2, 2, 1, 2, 1, 2, 4, 4]
    assert [r.ks["pair"] for r in rows] == [1, 1, 1, 2, 1, 2, 1, 2, 1, 2, 2, 2]
    # records 3 and 4 are identical: their true set has two records, and full shows both
    assert [r.true_set_size for r in rows] == [1, 1, 1, 2, 1, 2, 1, 2, 1, 2, 2, 2]
    assert rows[0].true_probability == Fraction(1, 3) and rows[0].nonspecificity_bits > 1.58
    assert rows[-1].k == 4 and rows[-1].kapr_term(Fraction(1, 36)) == 0
    assert all(r.compatible and not r.argmax_outside_true_set for r in rows)


def brute_pair_candidates(view, side, left, right) -> list[int]:
    """The pair model's candidate set by checking every (r, r'), as its definition reads."""
    mine, theirs = (left, right) if side == "left" else (right, left)
    other = "right" if side == "left" else "left"
    partners = brute_candidates(theirs, view.row(other))
    found = []
    for r in brute_candidates(mine, view.row(side)):
        for q in partners:
            if mine is theirs and q == r:
                continue
            lv, rv = values(mine, r), values(theirs, q)
            if side == "right":
                lv, rv = rv, lv
            if all(Marker.between(lv[a], rv[a]) == m for a, m in view.markers.items()):
                found.append(r)
                break
    return found


def _full(index, position):
    return {
        a: Evidence.full(index.value(a, position), category=KINDS[a].value == "category")
        for a in ATTRS
    }


@pytest.mark.parametrize("model", ["row", "pair"])
@settings(max_examples=60, deadline=None)
@given(data=st.data(), two_sources=st.booleans(), lie=st.booleans())
def test_rows_match_brute_force_and_max_flow(model, data, two_sources, lie):
    left = AnonymityIndex.build(data.draw(columns()), KINDS)
    right = AnonymityIndex.build(data.draw(columns()), KINDS) if two_sources else left
    pairs, records = data.draw(display(left, right, truth=True))
    if lie:  # claim other true records than those displayed: compatibility can now fail
        records = [
            (data.draw(st.integers(0, left.n - 1)), data.draw(st.integers(0, right.n - 1)))
            for _ in records
        ]
    audit = audit_state(_displayed(pairs, records, left, right), model=model, n_attributes=D)
    for row in audit.rows:
        view, truth = pairs[row.pair], records[row.pair][row.row]
        side = SIDES[row.row]
        index = (left, right)[row.row]
        if model == "row":
            cands = brute_candidates(index, view.row(side))
        else:
            cands = brute_pair_candidates(view, side, left, right)
        true_set = brute_candidates(index, _full(index, truth))
        assert row.k == len(cands)
        assert row.true_in_candidates == (truth in cands)
        assert row.true_set_size == len(true_set)
        assert row.true_set_covered == len(set(true_set) & set(cands))
        frame = range(index.n)
        p = true_probability(frame, true_set)
        if cands:
            m = categorical(frame, cands)
            flow = compatibility(m, p)
            assert row.compatible == flow.compatible
            assert row.max_violation == flow.violation
            assert row.true_probability == m.pignistic()[truth]
        if not lie:
            assert row.compatible and row.true_in_candidates  # Proposition 12


@pytest.mark.parametrize("model", ["row", "pair"])
@settings(max_examples=40, deadline=None)
@given(data=st.data(), two_sources=st.booleans())
def test_summary_kapr_is_the_kapr_score(model, data, two_sources):
    left = AnonymityIndex.build(data.draw(columns()), KINDS)
    right = AnonymityIndex.build(data.draw(columns()), KINDS) if two_sources else left
    pairs, records = data.draw(display(left, right, truth=True))
    audit = audit_state(_displayed(pairs, records, left, right), model=model, n_attributes=D)
    risks = [assess_pair(p.left, p.right, p.markers, left, right, model) for p in pairs]
    assert audit.summary.kapr == kapr_score(risks, 1, 2 * len(pairs), D).value


def test_rejects_an_unknown_model(paper_index):  # noqa: F811
    pairs = _displayed(paper_display(paper_index, "full"), PAIRS, paper_index, paper_index)
    with pytest.raises(ValueError, match="unknown evidence model"):
        audit_state(pairs, model="both", n_attributes=3)
