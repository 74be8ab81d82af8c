"""Triage as mathematics: thresholds, the stratified calibration draw, the review order."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

from app.projects.triage.plan import (
    TriageError,
    TriageSettings,
    calibration_sample,
    side_histogram,
    triage,
)

WEIGHTS = arrays(np.float64, st.integers(1, 400), elements=st.floats(-40, 40, width=32))


def probabilities(weight):
    return 1.0 / (1.0 + np.exp2(-weight))


@pytest.mark.parametrize(
    ("raw", "problem"),
    [
        ({"upper": 0.9}, "'lower' must be a number"),
        ({"lower": 0.9, "upper": 0.1}, "must not be above"),
        ({"lower": -0.1, "upper": 0.9}, "between 0 and 1"),
        ({"lower": 0.1, "upper": 0.9, "score": "rank"}, "'score'"),
        ({"lower": 0.1, "upper": 0.9, "order": "random"}, "'order'"),
        ({"lower": 0.1, "upper": 0.9, "calibration": -1}, "'calibration'"),
        ({"lower": 0.1, "upper": 0.9, "calibration": True}, "'calibration'"),
        ({"lower": 0.1, "upper": 0.9, "seed": 1.5}, "'seed'"),
        ({"lower": "nan", "upper": 0.9}, "'lower' must be a number"),
        ([0.1, 0.9], "must be an object"),
    ],
)
def test_bad_settings_are_refused_with_every_problem_named(raw, problem):
    with pytest.raises(TriageError) as caught:
        TriageSettings.parse(raw)
    assert any(problem in p for p in caught.value.problems), caught.value.problems


def test_settings_read_form_strings_and_weights_may_go_past_one():
    parsed = TriageSettings.parse({"lower": "0.05", "upper": "0.95", "calibration": "50"})
    assert (parsed.lower, parsed.upper, parsed.calibration, parsed.seed) == (0.05, 0.95, 50, 0)
    weights = TriageSettings.parse({"lower": -4, "upper": 6.5, "score": "weight"})
    assert (weights.lower, weights.upper, weights.score) == (-4.0, 6.5, "weight")


@settings(max_examples=60, deadline=None)
@given(weight=WEIGHTS, lower=st.floats(0, 1), width=st.floats(0, 1), n=st.integers(0, 60),
       seed=st.integers(0, 2**32), order=st.sampled_from(["uncertainty", "file"]))  # fmt: skip
def test_every_pair_is_decided_by_the_model_or_reviewed_once(weight, lower, width, n, seed, order):
    upper = min(1.0, lower + width)
    settings_ = TriageSettings(lower, upper, n, seed, order=order)
    p = probabilities(weight)
    t = triage(p, weight, settings_)
    c = t.counts
    assert c["above"] + c["inside"] + c["below"] == c["pairs"] == len(p)
    assert c["calibration"] == min(n, len(p))
    assert c["review"] + c["model_match"] + c["model_non_match"] == len(p)
    assert sorted(t.order.tolist()) == list(range(len(p)))
    reviewed = t.order[: c["review"]]
    assert set(t.purpose[reviewed]) <= {"band", "calibration"}
    assert set(t.purpose[t.order[c["review"] :]]) <= {"model"}
    assert (t.decision[p > upper] == "match").all() and (t.decision[p < lower] == "non_match").all()
    inside = (p >= lower) & (p <= upper)
    assert all(d is None for d in t.decision[inside])
    assert ((t.purpose == "band") == (inside & (t.purpose != "calibration"))).all()
    if order == "uncertainty":
        assert (np.diff(np.abs(weight[reviewed])) >= 0).all()
    else:
        assert (np.diff(reviewed) > 0).all()


@settings(max_examples=60, deadline=None)
@given(weight=WEIGHTS, n=st.integers(1, 80), seed=st.integers(0, 2**32), bins=st.integers(1, 12))
def test_the_calibration_draw_is_seeded_and_spread_over_the_whole_weight_range(
    weight, n, seed, bins
):
    drawn, strata = calibration_sample(weight, n, seed, bins)
    again, _ = calibration_sample(weight, n, seed, bins)
    assert drawn.tolist() == again.tolist()  # reproducible
    assert len(set(drawn.tolist())) == len(drawn) == min(n, len(weight))
    population, taken = np.array(strata.population), np.array(strata.drawn)
    assert population.sum() == len(weight) and taken.sum() == len(drawn)
    assert strata.edges[0] == pytest.approx(weight.min()) and len(strata.edges) == bins + 1
    assert (taken <= population).all()
    # Equal shares: a bin gets fewer than another only when it has no more pairs to give.
    short = taken < population
    if short.any():
        assert taken[short].max() - taken[short].min() <= 1
        assert (taken[~short] <= taken[short].min() + 1).all()
    edges = np.array(strata.edges)
    which = np.clip(np.searchsorted(edges, weight[drawn], side="right") - 1, 0, bins - 1)
    assert np.bincount(which, minlength=bins).tolist() == taken.tolist()


def test_another_seed_draws_another_sample():
    weight = np.linspace(-30, 30, 5000)
    first, _ = calibration_sample(weight, 50, 1)
    second, _ = calibration_sample(weight, 50, 2)
    assert first.tolist() != second.tolist()


def test_equal_shares_reach_the_rare_bins():
    """Mostly clear non-matches: a uniform draw of 50 would find ~1 pair above weight 0."""
    rng = np.random.default_rng(0)
    weight = np.concatenate([rng.uniform(-30, -10, 100_000), rng.uniform(10, 30, 500)])
    drawn, strata = calibration_sample(weight, 50, 1, bins=10)
    assert (weight[drawn] > 0).sum() >= 20
    # Weights -30..-10 and 10..30 leave the two middle bins empty: the others share 50.
    assert strata.drawn == [7, 7, 6, 6, 0, 0, 6, 6, 6, 6]


def test_side_histogram_splits_each_bin_by_the_band():
    values = np.array([0.0, 0.01, 0.5, 0.5, 0.97, 1.0])
    edges, sides = side_histogram(values, 0.05, 0.95, bins=2, lo=0.0, hi=1.0)
    assert edges == [0.0, 0.5, 1.0]
    assert sides == {"below": [2, 0], "inside": [0, 2], "above": [0, 2]}
