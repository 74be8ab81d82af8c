"""Shared fixtures and strategies: the mdl-anonymizer mock dataset and random trajectories."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import strategies as st

from app.core.trajectory.model import Trajectory, read_trajectories

DATA = Path(__file__).resolve().parents[2] / "data" / "trajectory"


@pytest.fixture(scope="session")
def expected() -> dict:
    return json.loads((DATA / "expected.json").read_text())


@pytest.fixture(scope="session")
def originals() -> list[Trajectory]:
    return read_trajectories(DATA / "mock_original.csv")


@pytest.fixture(scope="session")
def anonymized() -> list[Trajectory]:
    return read_trajectories(DATA / "mock_anonymized.csv")


def by_id(trajectories: list[Trajectory]) -> dict[int, Trajectory]:
    return {t.id: t for t in trajectories}


lats = st.floats(41.0, 41.2)
lons = st.floats(1.1, 1.3)


@st.composite
def trajectories(draw, min_size: int = 1, max_size: int = 8, tid: int = 1) -> Trajectory:
    """City-scale trajectories with non-decreasing timestamps (repeats allowed)."""
    n = draw(st.integers(min_size, max_size))
    start = draw(st.integers(1_600_000_000, 1_600_100_000))
    gaps = draw(st.lists(st.integers(0, 600), min_size=n - 1, max_size=n - 1))
    times = [start]
    for gap in gaps:
        times.append(times[-1] + gap)
    lon = draw(st.lists(lons, min_size=n, max_size=n))
    lat = draw(st.lists(lats, min_size=n, max_size=n))
    return Trajectory(tid, tid, times, lon, lat)
