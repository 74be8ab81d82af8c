"""Reading lines a block at a time gives exactly what line by line gives, problems included."""

from __future__ import annotations

import io

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from app.projects.reading import csvio
from app.projects.reading.csvio import CsvImportError

PIECES = st.sampled_from(
    [b"a", b"bc,d", b"\n", b"\r\n", b"\r", b'"', b"\x0c", "\u2028".encode(), "é".encode(),
     b"\xe2\x82", b"\xff", b"\0", b"x" * 9]
)  # fmt: skip


def _read(data: bytes, max_line: int, *, blocks: bool):
    """Lines (first line by line, then all the same or by blocks), or the problem raised."""
    lines = csvio._Lines(io.BytesIO(data), max_line)
    out = []
    try:
        for line in lines:
            out.append(line)
            break
        out += list(lines.rest() if blocks else lines)
    except CsvImportError as exc:
        return out, [str(p) for p in exc.problems]
    return out, None


@settings(max_examples=400)
@given(st.lists(PIECES, max_size=60).map(b"".join), st.sampled_from([4, 16, 64, 1 << 20]),
       st.sampled_from([1, 3, 8, 32]))  # fmt: skip
def test_blocks_read_as_line_by_line(data, max_line, block):
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(csvio, "_BLOCK_BYTES", block)
        assert _read(data, max_line, blocks=True) == _read(data, max_line, blocks=False)


def test_a_bad_byte_far_down_is_reported_as_line_by_line():
    data = b"id,name\n" + b"1,ann\n" * 100_000 + b"2,b\xffb\n" + b"3,c\n"
    assert _read(data, 1 << 20, blocks=True) == _read(data, 1 << 20, blocks=False)
    assert "line 100002" in _read(data, 1 << 20, blocks=True)[1][0]


@pytest.mark.parametrize("block", [2, 5, 64])
@pytest.mark.parametrize(
    "data",
    [b"a\n" + b"x" * 10 + b"\nb\n", b"a\nb\0\n", b"a\n\xe2\x82\n", b"a\nbb\ncc", b"a\r\nb\x0cc\n"],
)
def test_each_problem_and_line_end_as_line_by_line(data, block, monkeypatch):
    monkeypatch.setattr(csvio, "_BLOCK_BYTES", block)
    assert _read(data, 4, blocks=True) == _read(data, 4, blocks=False)
