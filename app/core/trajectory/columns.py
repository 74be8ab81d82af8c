"""Read a well-formed trajectory CSV column by column (Arrow), or say that the rows must be read.

:func:`read_columns` gives exactly what :func:`app.core.trajectory.model.read_trajectories`
gives for a file in the plain layout (no quote, no lone carriage return, numbers written
``[+-]digits[.digits][e±digits]``, ids of at most 18 digits, timestamps in exactly
``YYYY/MM/DD HH:MM:SS``), without a Python object per value: Arrow splits the file, the
values are checked and converted in arrays, and points are grouped by one stable sort. For
anything else it returns None, and the caller reads the rows one by one, which names the line
and column of any problem. Arrow and Python both round decimal numbers correctly, so a
coordinate gets the same float either way; a timestamp is converted by the proleptic
Gregorian calendar in integers, as :func:`~app.core.trajectory.model.parse_timestamp` does.
"""

from __future__ import annotations

import csv
import io
from collections.abc import Callable

import numpy as np

from app.core.trajectory.model import COLUMNS, Trajectory

__all__ = ["read_columns"]

NUMBER = r"^[+-]?([0-9]+\.?[0-9]*|\.[0-9]+)([eE][+-]?[0-9]+)?$"
WHOLE = r"^[0-9]{1,18}$"
STAMP = "YYYY/MM/DD HH:MM:SS"
_DAYS = np.array([31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31])


def read_columns(
    text: str, row_problem: Callable[[list[str]], str | None] | None = None
) -> list[Trajectory] | None:
    """The trajectories of ``text`` sorted by id, or None when its rows must be read one by one.

    ``row_problem`` is asked about the header and about the row with the most characters
    (all rows have the header's field count here): exact for bounds on the number of fields
    and on a row's characters, which is what :class:`app.limits.Limits` bounds.
    """
    try:
        data = text.encode("utf-8")
    except UnicodeEncodeError:
        return None
    first, _, _ = text.partition("\n")
    lone_cr = b"\r" in data and data.count(b"\r") != data.count(b"\r\n")
    if b'"' in data or lone_cr or not first.strip():
        return None
    header = next(csv.reader([first.rstrip("\r")]))
    names = [name.strip() for name in header]
    if any(c not in names for c in COLUMNS) or (row_problem and row_problem(header)):
        return None
    try:
        table = _table(data, len(header))
        if table.num_rows == 0 or (row_problem and row_problem(_longest(table))):
            return None
        values = _values({c: table.column(names.index(c)).combine_chunks() for c in COLUMNS})
    except Exception:  # noqa: BLE001 (pyarrow.ArrowInvalid and kin: the rows will say why)
        return None
    return None if values is None else _grouped(*values)


def _table(data: bytes, fields: int):
    from pyarrow import csv as pacsv
    from pyarrow import string

    names = [f"f{k}" for k in range(fields)]
    return pacsv.read_csv(
        io.BytesIO(data),
        read_options=pacsv.ReadOptions(skip_rows=1, column_names=names),
        parse_options=pacsv.ParseOptions(quote_char=False, newlines_in_values=False),
        convert_options=pacsv.ConvertOptions(
            column_types={name: string() for name in names}, strings_can_be_null=False
        ),
    )


def _longest(table) -> list[str]:
    import pyarrow.compute as pc

    size = pc.utf8_length(table.column(0))
    for k in range(1, table.num_columns):
        size = pc.add(size, pc.utf8_length(table.column(k)))
    row = int(pc.index(size, pc.max(size)).as_py())
    return [table.column(k)[row].as_py() for k in range(table.num_columns)]


def _values(at: dict) -> tuple | None:
    """(trajectory ids, user ids, seconds, lon, lat) as arrays, or None if a value needs the
    row-by-row reader (to be refused with its line, or to be read in another layout)."""
    import pyarrow.compute as pc

    numbers, wholes = (at["lon"], at["lat"]), (at["trajectory_id"], at["user_id"])
    if not all(pc.all(pc.match_substring_regex(a, NUMBER)).as_py() for a in numbers):
        return None
    if not all(pc.all(pc.match_substring_regex(a, WHOLE)).as_py() for a in wholes):
        return None
    lon, lat = (_array(pc.cast(a, "float64"), np.float64) for a in numbers)
    if not (np.all(np.abs(lat) <= 90.0) and np.all(np.abs(lon) <= 180.0)):
        return None
    seconds = _seconds(at["timestamp"])
    if seconds is None:
        return None
    tid, uid = (_array(pc.cast(a, "int64"), np.int64) for a in wholes)
    return tid, uid, seconds, lon, lat


def _array(values, dtype) -> np.ndarray:
    """A numeric Arrow array without nulls as numpy, from its buffer (``to_numpy`` would
    import pandas, a third of a second)."""
    size = np.dtype(dtype).itemsize
    return np.frombuffer(values.buffers()[1], dtype, len(values), values.offset * size)


def _seconds(stamps) -> np.ndarray | None:
    """Whole seconds UTC of ``YYYY/MM/DD HH:MM:SS`` strings, or None if one is not exactly so."""
    n, width = len(stamps), len(STAMP)
    _, offsets, data = stamps.buffers()
    ends = np.frombuffer(offsets, dtype=np.int32, count=n + 1, offset=4 * stamps.offset)
    if not np.all(np.diff(ends) == width):
        return None
    chars = np.frombuffer(data, np.uint8, count=n * width, offset=int(ends[0])).reshape(n, width)
    digits = np.array([c in "YMDHS" for c in STAMP])
    layout = np.frombuffer(STAMP.encode(), dtype=np.uint8)
    if not np.all(chars[:, ~digits] == layout[~digits]):
        return None
    d = chars[:, digits] - np.uint8(ord("0"))  # uint8: a character below '0' wraps past 9
    if not np.all(d <= 9):
        return None
    d = d.astype(np.int64)  # YYYY MM DD HH MM SS, 14 digits
    year = d[:, 0] * 1000 + d[:, 1] * 100 + d[:, 2] * 10 + d[:, 3]
    month, day, hour, minute, second = (d[:, k] * 10 + d[:, k + 1] for k in range(4, 14, 2))
    if not np.all((year >= 1) & (month >= 1) & (month <= 12)):
        return None
    leap = (year % 4 == 0) & ((year % 100 != 0) | (year % 400 == 0))
    in_month = (day >= 1) & (day <= _DAYS[month - 1] + ((month == 2) & leap))
    if not np.all(in_month & (hour < 24) & (minute < 60) & (second < 60)):
        return None
    return _days_from_civil(year, month, day) * 86400 + hour * 3600 + minute * 60 + second


def _days_from_civil(y: np.ndarray, m: np.ndarray, d: np.ndarray) -> np.ndarray:
    """Days since 1970-01-01 of proleptic Gregorian dates (H. Hinnant's ``days_from_civil``)."""
    y = y - (m <= 2)
    era = np.floor_divide(y, 400)
    yoe = y - era * 400
    doy = (153 * (m + np.where(m > 2, -3, 9)) + 2) // 5 + d - 1
    doe = yoe * 365 + yoe // 4 - yoe // 100 + doy
    return era * 146097 + doe - 719468


def _grouped(tid, uid, seconds, lon, lat) -> list[Trajectory] | None:
    """One trajectory per id, ids ascending, points stably sorted by time (as ``from_points``)."""
    order = np.lexsort((seconds, tid))
    tid, uid = tid[order], uid[order]
    starts = np.flatnonzero(np.r_[True, tid[1:] != tid[:-1]])
    ends = np.r_[starts[1:], len(tid)]
    first_uid = np.repeat(uid[starts], ends - starts)
    if not np.array_equal(uid, first_uid):
        return None  # a trajectory with two users: the rows name the line
    t, x, y = seconds[order], lon[order], lat[order]
    for array in (t, x, y):
        array.setflags(write=False)  # the trajectories' arrays are read-only views of these
    # _values checked the types and ranges, lexsort sorted each id's times: no check is left
    ids, users = tid[starts].tolist(), uid[starts].tolist()
    return [
        Trajectory.from_checked(i, u, t[a:b], x[a:b], y[a:b])
        for i, u, a, b in zip(ids, users, starts.tolist(), ends.tolist(), strict=True)
    ]
