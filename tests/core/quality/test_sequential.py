"""The sequential alert rule: Wald's boundaries, its operating characteristic, a simulation."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from app.core.quality import Sprt

RULE = Sprt.for_threshold(0.2, 0.25, 0.05, 0.05)


def test_boundaries_and_steps():
    assert RULE.p0 == pytest.approx(0.05) and RULE.p1 == 0.2
    assert RULE.upper == pytest.approx(np.log(19)) and RULE.lower == pytest.approx(-np.log(19))
    assert RULE.wrong_step == pytest.approx(np.log(4))
    # three wrong answers in a row flag; two do not
    assert RULE.run([True, True]).flagged_at is None
    assert RULE.run([True, True, True]).flagged_at == 3


def test_operating_characteristic_at_the_two_rates():
    """Wald's approximation gives alpha at p0 and 1 - beta at p1, and less at lower rates."""
    assert RULE.false_alert(RULE.p0) == pytest.approx(0.05, rel=1e-6)
    assert RULE.false_alert(RULE.p1) == pytest.approx(0.95, rel=1e-6)
    assert RULE.false_alert(0.02) < RULE.false_alert(0.05) < RULE.false_alert(0.1)


def test_simulated_false_alerts_stay_under_walds_bound():
    """At p0 each test (until it accepts or flags) flags at most about alpha of the time."""
    rng = np.random.default_rng(5)
    flagged, tests = 0, 0
    for _ in range(3000):
        statistic = 0.0
        while True:
            statistic += RULE.wrong_step if rng.random() < RULE.p0 else RULE.right_step
            if statistic >= RULE.upper:
                flagged += 1
                break
            if statistic <= RULE.lower:
                break
        tests += 1
    assert flagged / tests <= 0.05 + 3 * np.sqrt(0.05 * 0.95 / tests)


@settings(max_examples=100, deadline=None)
@given(st.lists(st.booleans(), max_size=80))
def test_a_flag_is_the_first_crossing(trials):
    state = RULE.run(trials)
    if state.flagged_at is None:
        assert state.trials == len(trials)
    else:
        assert RULE.run(trials[: state.flagged_at - 1]).flagged_at is None
        assert state.wrong == sum(trials[: state.flagged_at])


@pytest.mark.parametrize("rates", [(0, 0.1), (0.2, 0.1), (0.1, 1)], ids=["zero", "reversed", "one"])
def test_bad_rates_are_refused(rates):
    with pytest.raises(ValueError):
        Sprt(*rates)
