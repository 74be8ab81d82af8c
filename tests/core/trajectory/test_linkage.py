"""Record-linkage risk, exact and windowed, against the reference and the spec (§4)."""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from app.core.trajectory.distances import Martinez2021, calibrate
from app.core.trajectory.linkage import (
    default_window_size,
    nearest_position,
    record_linkage,
    window_positions,
    window_size,
    windowed_record_linkage,
)
from app.core.trajectory.model import Trajectory
from app.core.trajectory.shape import discrete_frechet
from tests.core.trajectory.conftest import trajectories


def as_fraction(percent: float, n: int) -> Fraction:
    return Fraction(percent / 100).limit_denominator(4 * n * n)


def test_exact_rl_reproduces_the_reference(originals, anonymized, expected):
    result = record_linkage(originals, anonymized)
    value = expected["rl_percent"]["exact"]
    assert result.risk == as_fraction(value, 46) == Fraction(13, 46)
    assert result.percent == pytest.approx(value, rel=1e-15)
    assert (result.n_original, result.n_anonymized, result.linked) == (46, 46, 13)
    link = result.links[0]
    assert link.anonymized_id == 1 and link.candidates == 46 and link.true_in_candidates


@pytest.mark.parametrize("label", ["default", "1%", "10%", "50%"])
def test_windowed_rl_reproduces_the_reference(originals, anonymized, expected, label):
    case = expected["rl_percent"]["windowed"][label]
    dist = Martinez2021(calibrate(originals).lam)
    result = windowed_record_linkage(originals, anonymized, dist, case["percen_window_size"])
    assert result.risk == as_fraction(case["value"], 46)
    assert result.percent == pytest.approx(case["value"], rel=1e-15)


def test_window_misses_are_reported(originals, anonymized):
    result = windowed_record_linkage(originals, anonymized, percent=1.0)
    assert {link.candidates for link in result.links} == {1}
    assert sum(not link.true_in_candidates for link in result.links) > 0


@pytest.mark.parametrize(
    ("n", "m"), [(46, 46), (99, 99), (100, 100), (999, 999), (1000, 100), (2082, 208), (12345, 123)]
)
def test_default_window(n, m):
    assert default_window_size(n) == window_size(n) == m


def test_window_percent_is_validated():
    with pytest.raises(ValueError):
        window_size(10, 0)
    assert window_size(46, 10) == pytest.approx(4.6)


@pytest.mark.parametrize(
    ("pos", "m", "n", "expected"),
    [
        (10, 0.46, 46, range(10, 11)),
        (10, 4.6, 46, range(8, 13)),
        (10, 4, 46, range(9, 13)),
        (0, 46, 46, range(0, 46)),
        (45, 46, 46, range(0, 46)),
        (46, 5, 46, range(41, 46)),  # past the end: shifted back inside
        (0, 23.0, 46, range(0, 23)),
    ],
)
def test_window_positions(pos, m, n, expected):
    assert window_positions(pos, m, n) == expected


@given(st.integers(1, 60), st.data())
def test_window_positions_stay_inside(n, data):
    pos = data.draw(st.integers(0, n))
    m = data.draw(st.floats(0.01, n))
    window = window_positions(pos, m, n)
    assert 0 <= window.start < window.stop <= n
    assert len(window) == min(n, 2 * int(m / 2) + (0 if m % 2 == 0 else 1))


def test_nearest_position_prefers_the_smaller_on_ties():
    values = [1.0, 2.0, 4.0]
    assert [nearest_position(values, x) for x in (0.5, 1.5, 1.6, 3.0, 3.5, 9.0)] == [
        0,
        0,
        1,
        1,
        2,
        3,
    ]


def _traj(tid: int, shift: float, n: int = 4) -> Trajectory:
    return Trajectory(tid, tid, np.arange(n) * 60, 1.2 + shift + np.arange(n) * 1e-3, [41.1] * n)


def test_identical_originals_share_the_link():
    originals = [_traj(1, 0.0), _traj(2, 0.0), _traj(3, 0.05)]
    anonymized = [_traj(1, 0.001), _traj(3, 0.049)]
    result = record_linkage(originals, anonymized, Martinez2021(0.1))
    assert result.links[0].closest_ids == (1, 2)
    assert [link.probability for link in result.links] == [Fraction(1, 2), 1]
    assert result.risk == Fraction(3, 2) / 3


def test_removed_trajectories_count_as_not_linked():
    originals = [_traj(k, k * 0.01) for k in range(1, 5)]
    result = record_linkage(originals, originals[:2], Martinez2021(0.1))
    assert result.risk == Fraction(2, 4) and result.percent == 50.0


def test_any_pairwise_distance_works():
    originals = [_traj(k, k * 0.01) for k in range(1, 5)]
    anonymized = [_traj(k, k * 0.01 + 0.002) for k in range(1, 5)]
    assert record_linkage(originals, anonymized, discrete_frechet).risk == 1
    assert windowed_record_linkage(originals, anonymized, discrete_frechet).risk == 1


def test_unique_original_ids_required():
    with pytest.raises(ValueError, match="unique"):
        record_linkage([_traj(1, 0), _traj(1, 0.1)], [], Martinez2021(0.1))


@st.composite
def datasets(draw):
    n = draw(st.integers(1, 6))
    originals = [draw(trajectories(max_size=5, tid=k)) for k in range(n)]
    anonymized = [draw(trajectories(max_size=5, tid=k)) for k in range(n) if draw(st.booleans())]
    return originals, anonymized


@settings(max_examples=40, deadline=None)
@given(datasets(), st.floats(0, 1))
def test_full_window_equals_exact_search(data, lam):
    originals, anonymized = data
    dist = Martinez2021(lam)
    exact = record_linkage(originals, anonymized, dist)
    assert windowed_record_linkage(originals, anonymized, dist, 100.0).risk == exact.risk
    assert 0 <= exact.risk <= 1
