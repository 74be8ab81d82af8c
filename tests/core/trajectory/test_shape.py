"""Synchronized, DTW and discrete Fréchet distances."""

from __future__ import annotations

import pytest
from hypothesis import given, settings

from app.core.trajectory.model import Trajectory
from app.core.trajectory.shape import discrete_frechet, dtw, synchronized_haversine
from tests.core.trajectory.conftest import trajectories

DISTANCES = pytest.mark.parametrize("distance", [discrete_frechet, dtw, synchronized_haversine])


@DISTANCES
@settings(max_examples=40, deadline=None)
@given(trajectories(), trajectories())
def test_symmetric_and_zero_on_itself(distance, a, b):
    assert distance(a, b) == pytest.approx(distance(b, a), rel=1e-12)
    assert distance(a, a) == 0.0


@settings(max_examples=60, deadline=None)
@given(trajectories(), trajectories(), trajectories())
def test_frechet_triangle_inequality(a, b, c):
    assert discrete_frechet(a, c) <= discrete_frechet(a, b) + discrete_frechet(b, c) + 1e-6


@settings(max_examples=40, deadline=None)
@given(trajectories(), trajectories())
def test_dtw_bounds_frechet(a, b):
    assert discrete_frechet(a, b) <= dtw(a, b) + 1e-6


def test_hand_values():
    a = Trajectory(1, 1, [0, 10, 20], [0.0, 0.0, 0.0], [0.0, 0.001, 0.002])
    b = Trajectory(2, 2, [0, 20], [0.0, 0.0], [0.0, 0.002])
    step = 0.001 * 6371008.8 * 3.141592653589793 / 180  # ~111 m
    assert discrete_frechet(a, b) == pytest.approx(step)
    assert dtw(a, b) == pytest.approx(step)
    # at t = 10 b is interpolated to a's position: only exact instants are compared
    assert synchronized_haversine(a, b) == pytest.approx(0, abs=1e-6)


def test_synchronized_needs_overlap():
    a = Trajectory(1, 1, [0, 10], [0.0, 0.0], [0.0, 0.0])
    b = Trajectory(2, 2, [11, 20], [0.0, 0.0], [0.0, 0.0])
    assert synchronized_haversine(a, b) == float("inf")
