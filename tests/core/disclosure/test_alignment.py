"""Tests of the OSA Damerau-Levenshtein alignment (paper §3.2)."""

from __future__ import annotations

from functools import cache

import jellyfish
import pytest
from hypothesis import given
from hypothesis import strategies as st

from app.core.disclosure import Op, align, osa_distance

# Small alphabets make repeated characters, swaps and ties likely; include non-ASCII.
texts = st.text(alphabet="ABCé漢 ", max_size=9)


def apply_ops(a: str, b: str, ops: tuple[Op, ...]) -> str:
    """Rebuild ``b`` from ``a`` and the operations, checking their positions."""
    out: list[str] = []
    i = j = 0
    for op in ops:
        assert (op.i, op.j) == (i, j), op
        if op.kind == "match":
            assert a[i] == b[j]
            out.append(a[i])
        elif op.kind == "substitute":
            assert a[i] != b[j]
            out.append(b[j])
        elif op.kind == "transpose":
            assert a[i] != a[i + 1]
            out.append(a[i + 1] + a[i])
        elif op.kind == "insert":
            out.append(b[j])
        i += len(op.a_positions)
        j += len(op.b_positions)
    assert (i, j) == (len(a), len(b))
    return "".join(out)


def reference_osa(a: str, b: str) -> int:
    """Return the OSA distance by its recursive definition (independent of the DP table)."""

    @cache
    def d(i: int, j: int) -> int:
        if i == 0 or j == 0:
            return i + j
        best = min(d(i - 1, j) + 1, d(i, j - 1) + 1, d(i - 1, j - 1) + (a[i - 1] != b[j - 1]))
        if i > 1 and j > 1 and a[i - 1] == b[j - 2] and a[i - 2] == b[j - 1]:
            best = min(best, d(i - 2, j - 2) + 1)
        return best

    return d(len(a), len(b))


# Pairs on which OSA and unrestricted Damerau-Levenshtein agree.
AGREEING = [
    ("", ""),
    ("", "abc"),
    ("Mary", "Mark"),
    ("SANCHEZ", "SANCHEZ JR"),
    ("MITCHELL SR", "MITCHELL"),
    ("UPENDRABHAI", "UPENDRA"),
    ("GLORIA", "GEORGE"),
    ("1742682819", "1742668281"),
    ("ab", "ba"),
    ("abcdef", "badcfe"),
    ("KELLEY", "BARKLEY"),
    ("Zoë", "Zeö"),
    ("Ærøskøbing", "Ærøksøbing"),
    ("北京市", "京北市"),
]


@pytest.mark.parametrize(("a", "b"), AGREEING)
def test_cost_matches_jellyfish(a: str, b: str) -> None:
    ops = align(a, b)
    expected = jellyfish.damerau_levenshtein_distance(a, b)
    assert sum(op.cost for op in ops) == osa_distance(a, b) == expected
    assert apply_ops(a, b, ops) == b


def test_osa_differs_from_unrestricted_dl() -> None:
    # CA -> AC -> ABC edits the transposed pair again, which OSA forbids.
    assert jellyfish.damerau_levenshtein_distance("CA", "ABC") == 2
    assert osa_distance("CA", "ABC") == 3


@pytest.mark.parametrize(
    ("a", "b", "kinds"),
    [
        ("Mary", "Mark", ["match", "match", "match", "substitute"]),
        ("ab", "ba", ["transpose"]),
        ("SANCHEZ JR", "SANCHEZ", ["match"] * 7 + ["delete"] * 3),
        ("SANCHEZ", "SANCHEZ JR", ["match"] * 7 + ["insert"] * 3),
        ("", "xy", ["insert", "insert"]),
        ("xy", "", ["delete", "delete"]),
        ("", "", []),
    ],
)
def test_operations(a: str, b: str, kinds: list[str]) -> None:
    assert [op.kind for op in align(a, b)] == kinds


@pytest.mark.parametrize(
    ("a", "b", "changed"),
    [
        ("ANN", "AN", [Op("delete", 2, 2)]),  # a gap goes right in a run
        ("ADAMS SR", "ADAMS", [Op("delete", k, 5) for k in (5, 6, 7)]),  # whole suffix
        ("SALTZGIVER JR", "SALTZGIVER", [Op("delete", k, 10) for k in (10, 11, 12)]),
        # a gap is preferred to a substitution of equal total cost
        ("ERNIE", "ERNEST", [Op("delete", 3, 3), Op("insert", 5, 4), Op("insert", 5, 5)]),
    ],
)
def test_tie_breaking(a: str, b: str, changed: list[Op]) -> None:
    assert [op for op in align(a, b) if op.kind != "match"] == changed


def test_positions_of_a_suffix_extension() -> None:
    ops = align("SANCHEZ", "SANCHEZ JR")
    assert [op.b_positions for op in ops if op.kind == "insert"] == [(7,), (8,), (9,)]
    assert all(op.i == 7 for op in ops if op.kind == "insert")


@given(texts, texts)
def test_alignment_is_valid_and_optimal(a: str, b: str) -> None:
    ops = align(a, b)
    assert apply_ops(a, b, ops) == b
    cost = sum(op.cost for op in ops)
    assert cost == osa_distance(a, b) == reference_osa(a, b)
    # OSA lies between the unrestricted distance and Levenshtein, and equals the
    # unrestricted distance when that is at most 1 (a single edit is always restricted).
    dl = jellyfish.damerau_levenshtein_distance(a, b)
    assert dl <= cost <= jellyfish.levenshtein_distance(a, b)
    if dl <= 1:
        assert cost == dl


@given(texts, texts)
def test_alignment_is_symmetric_in_cost(a: str, b: str) -> None:
    assert osa_distance(a, b) == osa_distance(b, a)
    assert sum(op.cost for op in align(a, b)) == sum(op.cost for op in align(b, a))
