"""The columnar reader gives what the row reader gives, or declines: never another answer.

The row-by-row reader (:func:`read_trajectories`) is the oracle. For files mixing plain and
odd spellings of every column (signs, spaces, single-digit dates, impossible dates, quotes,
CR/LF, blank lines, long rows, two users for a trajectory), :func:`read_columns` either
returns None or exactly the row reader's trajectories; where the row reader refuses the file,
it returns None (so the caller's row reader names the line).
"""

from __future__ import annotations

import io

from hypothesis import given, settings
from hypothesis import strategies as st

from app.core.trajectory.columns import read_columns
from app.core.trajectory.model import Trajectory, TrajectoryFormatError, read_trajectories
from app.limits import Limits
from tests.core.trajectory.conftest import DATA

LIMITS = Limits(attributes=100, record_chars=80)

PLAIN_NUMBERS = st.floats(-89.9, 89.9, allow_nan=False).map(repr)
ODD_NUMBERS = st.sampled_from(
    ["+1.5", "-0.0", "1.", ".5", "1e-3", "7E2", " 1.5", "1_0", "nan", "inf", "200", "", "0x1"]
)
PLAIN_STAMPS = st.builds(
    "{:04d}/{:02d}/{:02d} {:02d}:{:02d}:{:02d}".format,
    st.integers(1970, 2030), st.integers(1, 12), st.integers(1, 28),
    st.integers(0, 23), st.integers(0, 59), st.integers(0, 59),
)  # fmt: skip
ODD_STAMPS = st.sampled_from(
    [
        "2024/02/29 00:00:00", "2023/02/29 00:00:00", "2022/1/5 3:04:05", " 2022/01/05 03:04:05",
        "2022/01/05 03:04:60", "2022/13/01 00:00:00", "0000/01/01 00:00:00", "1900/02/29 1:1:1",
        "2000/02/29 23:59:59", "2022-01-05 03:04:05", "",
    ]
)  # fmt: skip
IDS = st.one_of(st.integers(0, 5).map(str), st.sampled_from(["007", "-3", "+2", "9" * 19, "x"]))


@st.composite
def files(draw, plain: bool = False):
    """A CSV text; unless ``plain``, each value is odd with a drawn chance (none, some, many)."""
    chance = 0 if plain else draw(st.sampled_from([0, 5, 30]))

    def pick(usual, odd):
        return draw(odd if draw(st.integers(0, 99)) < chance else usual)

    extra = draw(st.sampled_from([[], ["note"]] if plain else [[], ["note"], ["lon"]]))
    columns = draw(st.permutations(["lon", "lat", "timestamp", "trajectory_id", "user_id"]))
    rows = []
    for _ in range(draw(st.integers(1 if plain else 0, 12))):
        tid = pick(st.integers(0, 5).map(str), IDS)
        values = {
            "lon": pick(PLAIN_NUMBERS, ODD_NUMBERS), "lat": pick(PLAIN_NUMBERS, ODD_NUMBERS),
            "timestamp": pick(PLAIN_STAMPS, ODD_STAMPS), "trajectory_id": tid,
            "user_id": pick(st.just(tid), st.just("1")),
        }  # fmt: skip
        note = draw(st.text("abc", max_size=5 if plain else 40))
        rows.append([values[c] for c in columns] + [note if c == "note" else "1" for c in extra])
    lines = [",".join([*columns, *extra]), *(",".join(row) for row in rows)]
    if pick(st.just(False), st.just(True)):
        lines.insert(draw(st.integers(1, len(lines))), "")
    if pick(st.just(False), st.just(True)) and len(lines) > 1:
        lines[-1] = lines[-1].replace(",", ',"', 1) + '"'  # a quoted field
    end = pick(st.sampled_from(["\n", "\r\n"]), st.just("\r"))
    return end.join(lines) + end


def _rows(text: str):
    try:
        return read_trajectories(io.StringIO(text, newline=""), LIMITS.row_problem)
    except TrajectoryFormatError:
        return None


def _same(a, b) -> bool:
    return len(a) == len(b) and all(
        (x.id, x.user_id, x._key) == (y.id, y.user_id, y._key) and _as_built(x)
        for x, y in zip(a, b, strict=True)
    )


def _as_built(x) -> bool:
    """What the constructor would make of the same values (the columns skip its checks)."""
    built = Trajectory(x.id, x.user_id, x.t, x.lon, x.lat)  # raises where a check fails
    arrays = (x.t, x.lon, x.lat)
    return [a.dtype for a in arrays] == [built.t.dtype, built.lon.dtype, built.lat.dtype] and (
        not any(a.flags.writeable for a in arrays)
    )


@settings(max_examples=300, deadline=None)
@given(files())
def test_the_columns_agree_with_the_rows_or_decline(text):
    fast = read_columns(text, LIMITS.row_problem)
    if fast is not None:
        rows = _rows(text)
        assert rows is not None and _same(fast, rows)


@settings(max_examples=60, deadline=None)
@given(files(plain=True))
def test_a_plain_file_is_read_by_columns(text):
    fast = read_columns(text, LIMITS.row_problem)
    assert fast is not None and _same(fast, _rows(text))


def test_the_real_mock_files_are_read_by_columns():
    for name in ("mock_original.csv", "mock_anonymized.csv"):
        text = (DATA / name).read_text(encoding="utf-8-sig")
        fast = read_columns(text, LIMITS.row_problem)
        assert fast is not None and len(fast) == 46 and _same(fast, _rows(text))
