"""CSV export: round trip, byte-identical quoting, independence from the chunk size."""

from __future__ import annotations

import csv
import io

import numpy as np
import pytest

from app.datagen import COLUMNS, TRUTH_COLUMNS, generate, write_csv
from app.datagen.export import format_csv


def test_round_trip_with_dictreader(tmp_path):
    path = tmp_path / "people.csv"
    assert write_csv(path, 12_000, seed=4) == 12_000
    expected = generate(12_000, seed=4)
    with open(path, encoding="utf-8", newline="") as fh:
        reader = csv.DictReader(fh)
        rows = list(reader)
    assert tuple(reader.fieldnames) == COLUMNS
    assert len(rows) == 12_000
    for col in COLUMNS:
        assert [r[col] for r in rows] == expected[col].tolist()
    assert any("," in r["diagnosis"] for r in rows)  # quoting was exercised


def test_truth_columns_round_trip(tmp_path):
    path = tmp_path / "truth.csv"
    write_csv(path, 3_000, seed=9, truth=True)
    with open(path, encoding="utf-8", newline="") as fh:
        rows = list(csv.DictReader(fh))
    expected = generate(3_000, seed=9, truth=True)
    for col in COLUMNS + TRUTH_COLUMNS:
        assert [r[col] for r in rows] == expected[col].tolist()


def test_bytes_do_not_depend_on_chunk(tmp_path):
    contents = set()
    for chunk in (1, 10_000, 25_000, 100_000):
        path = tmp_path / f"c{chunk}.csv"
        write_csv(path, 31_234, seed=8, chunk=chunk)
        contents.add(path.read_bytes())
    assert len(contents) == 1


def test_same_bytes_for_same_seed(tmp_path):
    a, b, c = (tmp_path / f"{x}.csv" for x in "abc")
    write_csv(a, 5_000, seed=1)
    write_csv(b, 5_000, seed=1)
    write_csv(c, 5_000, seed=2)
    assert a.read_bytes() == b.read_bytes() != c.read_bytes()


def test_empty_file_has_header_only(tmp_path):
    path = tmp_path / "empty.csv"
    assert write_csv(path, 0, seed=0) == 0
    assert path.read_bytes() == (",".join(COLUMNS) + "\r\n").encode()


TRICKY = [
    "plain",
    "",
    "a,b",
    'say "hi"',
    "two\nlines",
    "cr\rhere",
    " spaced ",
    "Zoë Ñúñez",
    '",\n"',
    "x" * 70,
]


@pytest.mark.parametrize("rotate", range(3))
def test_format_matches_csv_writer(rotate):
    first = np.array(TRICKY[rotate:] + TRICKY[:rotate])
    second = np.array(TRICKY[::-1])
    buf = io.StringIO(newline="")
    csv.writer(buf).writerows(zip(first.tolist(), second.tolist(), strict=True))
    got = format_csv({"a": first, "b": second}, ["a", "b"])
    assert got == buf.getvalue().encode("utf-8")
