"""Reading and validating trajectory CSV files (spec §4 "Data")."""

from __future__ import annotations

import io

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from app.core.trajectory.model import (
    Trajectory,
    TrajectoryFormatError,
    format_timestamp,
    parse_timestamp,
    read_trajectories,
)

HEADER = "lon,lat,timestamp,trajectory_id,user_id\n"


def read(text: str) -> list[Trajectory]:
    return read_trajectories(io.StringIO(HEADER + text))


def test_mock_files_load(originals, anonymized):
    assert len(originals) == len(anonymized) == 46
    assert [t.id for t in originals] == sorted(t.id for t in originals)
    first = originals[0]
    assert (first.id, first.user_id, len(first)) == (1, 1, 8)
    assert first.t[0] == parse_timestamp("2022/11/21 15:26:23") == 1669044383
    assert first.lon[0] == 1.24546033003196 and first.lat[0] == 41.1320300107818
    assert all(np.all(np.diff(t.t) >= 0) for t in originals + anonymized)


def test_rows_are_grouped_and_sorted_by_time():
    rows = (
        "1.0,41.0,2022/01/01 00:00:10,7,3\n"
        "2.0,42.0,2022/01/01 00:00:00,5,1\n"
        "1.5,41.5,2022/01/01 00:00:05,7,3\n"
    )
    five, seven = read(rows)
    assert (five.id, seven.id, seven.user_id) == (5, 7, 3)
    assert seven.lon.tolist() == [1.5, 1.0] and np.diff(seven.t).tolist() == [5]


@pytest.mark.parametrize(
    ("row", "message"),
    [
        ("1.0,90.5,2022/01/01 00:00:00,1,1", "line 3: column lat: outside [-90, 90]"),
        ("-180.01,0,2022/01/01 00:00:00,1,1", "line 3: column lon: outside"),
        ("1.0,nan,2022/01/01 00:00:00,1,1", "line 3: column lat: not a finite number"),
        ("x,0,2022/01/01 00:00:00,1,1", "line 3: column lon: not a number"),
        ("1.0,0,2022-01-01 00:00:00,1,1", "line 3: column timestamp: not YYYY/MM/DD HH:MM:SS"),
        ("1.0,0,2022/01/01 00:00:00,a,1", "line 3: column trajectory_id: not a whole number"),
        ("1.0,0,2022/01/01 00:00:00,1,b", "line 3: column user_id: not a whole number"),
        ("1.0,0,2022/01/01 00:00:00,1,2", "line 3: column user_id: this trajectory has another"),
        ("1.0,0", "line 3: expected 5 fields"),
        ("1.0,0,2022/01/01 00:00:00,1,1,9", "line 3: expected 5 fields"),
    ],
)
def test_bad_rows_are_rejected_with_their_line(row, message):
    with pytest.raises(
        TrajectoryFormatError, match=message.replace("[", r"\[").replace("]", r"\]")
    ) as err:
        read("1.0,0,2022/01/01 00:00:00,1,1\n" + row + "\n")
    assert err.value.line == 3


def test_missing_column_is_named():
    with pytest.raises(TrajectoryFormatError, match="line 1: missing column.*user_id"):
        read_trajectories(io.StringIO("lon,lat,timestamp,trajectory_id\n"))


def test_header_order_is_free():
    (t,) = read_trajectories(
        io.StringIO("user_id,trajectory_id,timestamp,lat,lon\n4,9,2022/01/01 00:00:00,41,2\n")
    )
    assert (t.id, t.user_id, t.lon[0], t.lat[0]) == (9, 4, 2.0, 41.0)


def test_constructor_validates():
    with pytest.raises(TrajectoryFormatError, match="the latitude of point 1 is outside"):
        Trajectory(1, 1, [0, 1], [0.0, 0.0], [0.0, 91.0])
    with pytest.raises(TrajectoryFormatError, match="sorted"):
        Trajectory(1, 1, [1, 0], [0.0, 0.0], [0.0, 0.0])
    with pytest.raises(TrajectoryFormatError, match="no points"):
        Trajectory(1, 1, [], [], [])
    with pytest.raises(TrajectoryFormatError, match="same length"):
        Trajectory(1, 1, [0], [0.0, 1.0], [0.0])
    t = Trajectory(1, 1, [0], [0.0], [0.0])
    with pytest.raises(ValueError):
        t.lat[0] = 1.0


def test_same_points_ignores_ids():
    a = Trajectory(1, 1, [0, 5], [1.0, 2.0], [3.0, 4.0])
    assert a.same_points(Trajectory(2, 9, [0, 5], [1.0, 2.0], [3.0, 4.0]))
    assert not a.same_points(Trajectory(1, 1, [0, 6], [1.0, 2.0], [3.0, 4.0]))


@given(st.integers(0, 4_000_000_000))
def test_timestamps_round_trip(seconds):
    assert parse_timestamp(format_timestamp(seconds)) == seconds
