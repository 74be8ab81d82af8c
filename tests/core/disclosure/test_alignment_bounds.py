"""The alignment's work is bounded: banded above a size, a cheap fallback past the bound."""

from __future__ import annotations

import random
import time

from hypothesis import given, settings
from hypothesis import strategies as st

from app.core.disclosure import alignment
from app.core.disclosure.alignment import MAX_CELLS, align, align_bounded, osa_distance
from tests.core.disclosure.test_alignment import apply_ops, reference_osa

texts = st.text(alphabet="ABCé ", max_size=14)


def legacy_align(a: str, b: str) -> tuple[alignment.Op, ...]:
    """The full-table alignment as it was before the bound (the reference below it)."""

    def table(x: str, y: str) -> list[list[int]]:
        n, m = len(x), len(y)
        d = [[i + j if i == 0 or j == 0 else 0 for j in range(m + 1)] for i in range(n + 1)]
        for i in range(1, n + 1):
            for j in range(1, m + 1):
                best = min(
                    d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + (x[i - 1] != y[j - 1])
                )
                if alignment._is_swap(x, y, i, j):
                    best = min(best, d[i - 2][j - 2] + 1)
                d[i][j] = best
        return d

    n, m = len(a), len(b)
    rev = table(a[::-1], b[::-1])
    band = alignment._Band.__new__(alignment._Band)
    band.lo, band.m, band.width = -n, m, n + m + 1
    band.rows = [[rev[i][i + band.lo + k] if 0 <= i + band.lo + k <= m else alignment._INF
                  for k in range(band.width)] for i in range(n + 1)]  # fmt: skip
    return alignment._trace(a, b, band)


@given(texts, texts)
def test_unbounded_alignment_is_the_full_table_one(a: str, b: str) -> None:
    assert align(a, b) == legacy_align(a, b)


@given(texts, texts, st.integers(min_value=1, max_value=400))
@settings(max_examples=300)
def test_a_narrow_band_gives_the_same_alignment_or_says_it_did_not(a, b, max_cells) -> None:
    result = align_bounded(a, b, max_cells=max_cells)
    assert result.cells <= max_cells
    assert apply_ops(a, b, result.ops) == b
    if result.exact:
        assert result.ops == legacy_align(a, b)
    else:
        # the fallback is an upper bound of the distance, never below it
        assert sum(op.cost for op in result.ops) >= reference_osa(a, b)


def test_values_whose_full_table_fits_get_the_full_table_result() -> None:
    rng = random.Random(400)
    for n, m in ((400, 400), (490, 500), (300, 800)):
        a = "".join(rng.choice("AB ") for _ in range(n))
        b = "".join(rng.choice("AB ") for _ in range(m))
        assert (n + 1) * (m + 1) <= MAX_CELLS
        result = align_bounded(a, b)
        assert result.exact and result.cells == (n + 1) * (m + 1)
        assert result.ops == legacy_align(a, b)


def _edited(text: str, edits: int, rng: random.Random) -> str:
    chars = list(text)
    for _ in range(edits):
        k = rng.randrange(len(chars) - 1)
        kind = rng.choice("sidt")
        if kind == "s":
            chars[k] = rng.choice("XYZ")
        elif kind == "i":
            chars.insert(k, rng.choice("XYZ"))
        elif kind == "d":
            del chars[k]
        else:
            chars[k], chars[k + 1] = chars[k + 1], chars[k]
    return "".join(chars)


def test_4000_character_values_stay_within_the_cell_bound() -> None:
    rng = random.Random(13)
    a = "".join(rng.choice("ABCDEFGH ") for _ in range(4000))
    b = _edited(a, 12, rng)
    started = time.perf_counter()
    near = align_bounded(a, b)
    unrelated = align_bounded(a, "".join(rng.choice("ABCDEFGH ") for _ in range(4000)))
    elapsed = time.perf_counter() - started
    # a full table would be 4001 x 4001 = 16 million cells per value pair
    assert near.cells <= MAX_CELLS and unrelated.cells <= MAX_CELLS
    assert near.exact and sum(op.cost for op in near.ops) == osa_distance(a, b) <= 12
    assert not unrelated.exact and apply_ops(a, b, near.ops) == b
    print(f"two 4,000-character alignments: {elapsed * 1000:.0f} ms ({near.cells:,} + "
          f"{unrelated.cells:,} cells)")  # fmt: skip


def test_osa_distance_of_long_values_is_exact() -> None:
    rng = random.Random(7)
    a = "".join(rng.choice("AB") for _ in range(60))
    b = _edited(a, 9, rng)
    assert osa_distance(a, b) == reference_osa(a, b)
