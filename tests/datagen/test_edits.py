"""Vectorised name edits: each applied edit is exactly one Damerau-Levenshtein step."""

from __future__ import annotations

import jellyfish
import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from app.datagen import edits

OPS = [edits.TYPO, edits.TRANSPOSE, edits.INSERT, edits.DELETE]


def _run(words: list[str], ops: list[int], seed: int = 0) -> tuple[list[str], list[int]]:
    names = np.array([w.encode() for w in words], dtype="S")
    out, applied = edits.apply_edits(names, np.array(ops), np.random.default_rng(seed))
    return [v.decode() for v in out.tolist()], applied.tolist()


@given(
    st.lists(
        st.tuples(st.text("ABCXYZ", min_size=0, max_size=12), st.sampled_from([0, *OPS])),
        min_size=1,
        max_size=40,
    ),
    st.integers(0, 2**32 - 1),
)
def test_each_applied_edit_is_one_dl_step(cases, seed):
    words, ops = [w for w, _ in cases], [o for _, o in cases]
    out, applied = _run(words, ops, seed)
    for word, new, op, done in zip(words, out, ops, applied, strict=True):
        assert done in (op, edits.NONE)
        expected = 0 if done == edits.NONE else 1
        assert jellyfish.damerau_levenshtein_distance(word, new) == expected
        assert set(new) <= set("ABCDEFGHIJKLMNOPQRSTUVWXYZ")


@pytest.mark.parametrize(
    ("word", "op", "done"),
    [
        ("AA", edits.TRANSPOSE, edits.NONE),  # no two different adjacent letters
        ("A", edits.DELETE, edits.NONE),  # would leave an empty name
        ("", edits.TYPO, edits.NONE),
        ("AB", edits.TRANSPOSE, edits.TRANSPOSE),
        ("A", edits.INSERT, edits.INSERT),
    ],
)
def test_impossible_edits_are_reported(word, op, done):
    out, applied = _run([word], [op])
    assert applied == [done]
    assert (out[0] == word) == (done == edits.NONE)


def test_transpose_result_is_deterministic():
    words = ["SMITH", "JOHNSON", "AB"] * 10
    assert _run(words, [edits.TRANSPOSE] * 30, 5) == _run(words, [edits.TRANSPOSE] * 30, 5)
