"""Agreement and accuracy figures against independent implementations (scikit-learn's
Cohen's kappa, statsmodels' Fleiss' kappa and Wilson interval), on generated tables."""

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn.metrics import cohen_kappa_score
from statsmodels.stats.inter_rater import aggregate_raters
from statsmodels.stats.inter_rater import fleiss_kappa as sm_fleiss
from statsmodels.stats.proportion import proportion_confint

from app.core.quality import cohen_kappa, discordance, fleiss_kappa, paired_answers, wilson_interval

LABELS = st.sampled_from(["same", "different", "unsure"])


@settings(max_examples=150, deadline=None)
@given(st.lists(st.tuples(LABELS, LABELS), min_size=1, max_size=60))
def test_cohen_kappa_equals_scikit_learn(pairs):
    ours = cohen_kappa(pairs)
    first, second = zip(*pairs, strict=True)
    if len(set(first) | set(second)) == 1:  # chance agreement 1: undefined (sklearn: nan)
        assert ours is None
        return
    theirs = cohen_kappa_score(first, second)
    if math.isnan(theirs):
        assert ours is None
    else:
        assert ours == pytest.approx(theirs, abs=1e-12)


@settings(max_examples=150, deadline=None)
@given(
    st.integers(2, 5).flatmap(
        lambda m: st.lists(st.lists(LABELS, min_size=m, max_size=m), min_size=1, max_size=40)
    )
)
def test_fleiss_kappa_equals_statsmodels(items):
    ours = fleiss_kappa(items)
    table, _ = aggregate_raters(np.array(items, dtype=object))
    if len({a for item in items for a in item}) == 1:
        assert ours is None
        return
    theirs = sm_fleiss(table, method="fleiss")
    assert ours == pytest.approx(theirs, abs=1e-12)


def test_fleiss_kappa_refuses_items_of_unequal_coders():
    with pytest.raises(ValueError, match="same number"):
        fleiss_kappa([["same", "same"], ["same", "different", "same"]])


@settings(max_examples=200, deadline=None)
@given(st.integers(0, 400).flatmap(lambda n: st.tuples(st.integers(0, n), st.just(n))))
def test_wilson_interval_equals_statsmodels(found):
    right, n = found
    ours = wilson_interval(right, n)
    if n == 0:
        assert (ours.low, ours.high, ours.value) == (0.0, 1.0, None)
        return
    low, high = proportion_confint(right, n, alpha=0.05, method="wilson")
    assert (ours.low, ours.high) == (pytest.approx(low, abs=1e-9), pytest.approx(high, abs=1e-9))
    assert ours.low <= right / n <= ours.high


def test_discordance_and_pairing():
    mine = {1: "same", 2: "different", 3: "same"}
    theirs = {2: "same", 3: "same", 4: "different"}
    both = paired_answers(mine, theirs)
    assert both == [("different", "same"), ("same", "same")]
    assert discordance(both) == 0.5
    assert discordance([]) is None
