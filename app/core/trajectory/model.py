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
from collections.abc import Callable, Iterable, Sequence
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
                raise TrajectoryFormatError(  # the value is a place: never quoted
                    f"trajectory {self.id}: the {name} of point {k} is outside "
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
    def from_checked(
        cls, id: int, user_id: int, t: np.ndarray, lon: np.ndarray, lat: np.ndarray
    ) -> Trajectory:
        """Build from read-only arrays that already pass every check of the constructor.

        For a reader that checked a whole file's points at once (:mod:`.columns`: int64 and
        float64, one dimension, same non-zero length, times sorted, coordinates in range):
        the arrays are kept as they are, not copied and checked again one trajectory at a
        time (a tenth of a second for two files of 2,082 trajectories).
        """
        self = object.__new__(cls)
        for name, value in (("id", id), ("user_id", user_id), ("t", t), ("lon", lon), ("lat", lat)):
            object.__setattr__(self, name, value)
        object.__setattr__(self, "_key", t.tobytes() + lon.tobytes() + lat.tobytes())
        return self

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


def _number(row: dict[str, str], column: str, line: int) -> float:
    try:
        value = float(row[column])
    except ValueError:
        raise TrajectoryFormatError(f"column {column}: not a number", line) from None
    if not math.isfinite(value):
        raise TrajectoryFormatError(f"column {column}: not a finite number", line)
    return value


def _whole(row: dict[str, str], column: str, line: int) -> int:
    text = row[column].strip()
    if not (text.lstrip("+-").isascii() and text.lstrip("+-").isdigit()) or len(text) > 19:
        raise TrajectoryFormatError(f"column {column}: not a whole number", line)
    return int(text)


def _parse_row(row: dict[str, str], line: int) -> tuple[int, int, int, float, float]:
    """One point; a message names the line and the column, never the value (it may be a
    person's place or id)."""
    lon, lat = _number(row, "lon", line), _number(row, "lat", line)
    if not -90.0 <= lat <= 90.0:
        raise TrajectoryFormatError("column lat: outside [-90, 90]", line)
    if not -180.0 <= lon <= 180.0:
        raise TrajectoryFormatError("column lon: outside [-180, 180]", line)
    try:
        t = parse_timestamp(row["timestamp"])
    except ValueError:
        raise TrajectoryFormatError("column timestamp: not YYYY/MM/DD HH:MM:SS", line) from None
    return _whole(row, "trajectory_id", line), _whole(row, "user_id", line), t, lon, lat


def read_trajectories(
    source: str | Path | io.TextIOBase,
    row_problem: Callable[[list[str]], str | None] | None = None,
) -> list[Trajectory]:
    """Read a trajectory CSV into trajectories sorted by id, points sorted by time.

    ``row_problem(fields)``, if given, bounds the header and every row (the app's
    :class:`app.limits.Limits.row_problem`: fields and characters); its message is raised
    with the line.

    Raises
    ------
    TrajectoryFormatError
        On a missing column, an unparsable value, a coordinate out of range, or a trajectory
        whose rows disagree on the user id; the message names the 1-based line and the
        column, never a value.
    """
    if isinstance(source, str | Path):
        with open(source, newline="", encoding="utf-8") as handle:
            return read_trajectories(handle, row_problem)
    reader = csv.reader(source)
    header = next(reader, [])
    problem = row_problem(header) if row_problem is not None else None
    if problem is not None:
        raise TrajectoryFormatError(problem, 1)
    names = [name.strip() for name in header]
    missing = [c for c in COLUMNS if c not in names]
    if missing:
        raise TrajectoryFormatError(f"missing column(s) {', '.join(missing)}", 1)
    at = {c: names.index(c) for c in COLUMNS}
    points: dict[int, list[tuple[int, float, float]]] = {}
    users: dict[int, tuple[int, int]] = {}  # trajectory id -> (user id, first line)
    while True:
        line = reader.line_num + 1
        fields = next(reader, None)
        if fields is None:
            break
        if not fields:
            continue
        problem = row_problem(fields) if row_problem is not None else None
        if problem is not None:
            raise TrajectoryFormatError(problem, line)
        if len(fields) != len(header):
            raise TrajectoryFormatError(f"expected {len(header)} fields, found {len(fields)}", line)
        tid, uid, t, lon, lat = _parse_row({c: fields[i] for c, i in at.items()}, line)
        user, first = users.setdefault(tid, (uid, line))
        if user != uid:
            raise TrajectoryFormatError(
                f"column user_id: this trajectory has another user on line {first}", line
            )
        points.setdefault(tid, []).append((t, lon, lat))
    return [Trajectory.from_points(tid, users[tid][0], points[tid]) for tid in sorted(points)]
