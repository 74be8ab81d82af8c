"""Trajectories and their CSV form (spec/README.md §4, "Data").

A trajectory is a time-ordered list of ``(timestamp, lon, lat)`` points with a trajectory id
and a user id. Timestamps are whole seconds since the Unix epoch, UTC. The CSV form has the
columns ``lon,lat,timestamp,trajectory_id,user_id`` (any order, named by the header) and
timestamps written ``YYYY/MM/DD HH:MM:SS``; rows of one trajectory need not be contiguous or
sorted. A point with a latitude outside [-90, 90] or a longitude outside [-180, 180] is
rejected, with the line that holds it.
"""

from __future__ import annotations

import csv
import io
import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path

import numpy as np

__all__ = [
    "COLUMNS",
    "TIME_FORMAT",
    "Trajectory",
    "TrajectoryFormatError",
    "format_timestamp",
    "parse_timestamp",
    "read_trajectories",
]

COLUMNS = ("lon", "lat", "timestamp", "trajectory_id", "user_id")
TIME_FORMAT = "%Y/%m/%d %H:%M:%S"


class TrajectoryFormatError(ValueError):
    """A trajectory file or point that cannot be accepted; ``line`` is 1-based, or None."""

    def __init__(self, message: str, line: int | None = None) -> None:
        super().__init__(f"line {line}: {message}" if line is not None else message)
        self.line = line


def _frozen(values: Iterable[float], dtype: type) -> np.ndarray:
    array = np.array(values, dtype=dtype)
    array.setflags(write=False)
    return array


@dataclass(frozen=True, eq=False, slots=True)
class Trajectory:
    """One trajectory: parallel read-only arrays sorted by time.

    Parameters
    ----------
    id, user_id
        The trajectory's id and its user's id.
    t
        Timestamps, whole seconds UTC (int64), non-decreasing.
    lon, lat
        Degrees (float64), within [-180, 180] and [-90, 90].
    """

    id: int
    user_id: int
    t: np.ndarray
    lon: np.ndarray
    lat: np.ndarray
    _key: bytes = field(init=False, repr=False)

    def __post_init__(self) -> None:
        t = _frozen(self.t, np.int64)
        lon = _frozen(self.lon, np.float64)
        lat = _frozen(self.lat, np.float64)
        if not (t.ndim == lon.ndim == lat.ndim == 1 and len(t) == len(lon) == len(lat)):
            raise TrajectoryFormatError(
                f"trajectory {self.id}: t, lon, lat must be 1-d, same length"
            )
        if len(t) == 0:
            raise TrajectoryFormatError(f"trajectory {self.id} has no points")
        if np.any(np.diff(t) < 0):
            raise TrajectoryFormatError(f"trajectory {self.id}: timestamps must be sorted")
        for name, values, bound in (("latitude", lat, 90.0), ("longitude", lon, 180.0)):
            bad = ~(np.abs(values) <= bound)  # catches NaN too
            if bad.any():
                k = int(np.argmax(bad))
                raise TrajectoryFormatError(
                    f"trajectory {self.id}: {name} {float(values[k])} of point {k} is outside "
                    f"[-{bound:g}, {bound:g}]"
                )
        object.__setattr__(self, "t", t)
        object.__setattr__(self, "lon", lon)
        object.__setattr__(self, "lat", lat)
        object.__setattr__(self, "_key", t.tobytes() + lon.tobytes() + lat.tobytes())

    def __len__(self) -> int:
        return len(self.t)

    def same_points(self, other: Trajectory) -> bool:
        """Whether both trajectories have identical point sequences (ids aside)."""
        return self._key == other._key

    @classmethod
    def from_points(
        cls, id: int, user_id: int, points: Sequence[tuple[int, float, float]]
    ) -> Trajectory:
        """Build from ``(timestamp, lon, lat)`` tuples, sorting them stably by time."""
        ordered = sorted(points, key=lambda p: p[0])
        return cls(
            id,
            user_id,
            [p[0] for p in ordered],
            [p[1] for p in ordered],
            [p[2] for p in ordered],
        )


def parse_timestamp(text: str) -> int:
    """Parse ``YYYY/MM/DD HH:MM:SS`` (UTC) to whole seconds since the epoch."""
    return int(datetime.strptime(text.strip(), TIME_FORMAT).replace(tzinfo=UTC).timestamp())


def format_timestamp(seconds: int) -> str:
    """Format whole seconds since the epoch as ``YYYY/MM/DD HH:MM:SS`` (UTC)."""
    return datetime.fromtimestamp(int(seconds), tz=UTC).strftime(TIME_FORMAT)


def _parse_row(row: dict[str, str], line: int) -> tuple[int, int, int, float, float]:
    if None in row or any(row[c] is None for c in COLUMNS):
        raise TrajectoryFormatError(f"expected {len(row) - (None in row)} fields", line)
    try:
        lon, lat = float(row["lon"]), float(row["lat"])
    except (TypeError, ValueError):
        raise TrajectoryFormatError(f"lon/lat must be numbers: {row!r}", line) from None
    if not (math.isfinite(lon) and math.isfinite(lat)):
        raise TrajectoryFormatError("lon/lat must be finite", line)
    if not -90.0 <= lat <= 90.0:
        raise TrajectoryFormatError(f"latitude {lat} is outside [-90, 90]", line)
    if not -180.0 <= lon <= 180.0:
        raise TrajectoryFormatError(f"longitude {lon} is outside [-180, 180]", line)
    try:
        t = parse_timestamp(row["timestamp"] or "")
    except ValueError:
        raise TrajectoryFormatError(
            f"timestamp {row['timestamp']!r} is not YYYY/MM/DD HH:MM:SS", line
        ) from None
    try:
        tid, uid = int(row["trajectory_id"]), int(row["user_id"])
    except (TypeError, ValueError):
        raise TrajectoryFormatError("trajectory_id and user_id must be integers", line) from None
    return tid, uid, t, lon, lat


def read_trajectories(source: str | Path | io.TextIOBase) -> list[Trajectory]:
    """Read a trajectory CSV into trajectories sorted by id, points sorted by time.

    Raises
    ------
    TrajectoryFormatError
        On a missing column, an unparsable value, a coordinate out of range, or a trajectory
        whose rows disagree on the user id; the message names the 1-based line.
    """
    if isinstance(source, str | Path):
        with open(source, newline="", encoding="utf-8") as handle:
            return read_trajectories(handle)
    reader = csv.DictReader(source)
    missing = [c for c in COLUMNS if c not in (reader.fieldnames or ())]
    if missing:
        raise TrajectoryFormatError(f"missing column(s) {', '.join(missing)}", 1)
    points: dict[int, list[tuple[int, float, float]]] = {}
    users: dict[int, int] = {}
    for row in reader:
        line = reader.line_num
        tid, uid, t, lon, lat = _parse_row(row, line)
        if users.setdefault(tid, uid) != uid:
            raise TrajectoryFormatError(
                f"trajectory {tid} has user {uid} here but user {users[tid]} before", line
            )
        points.setdefault(tid, []).append((t, lon, lat))
    return [Trajectory.from_points(tid, users[tid], points[tid]) for tid in sorted(points)]
