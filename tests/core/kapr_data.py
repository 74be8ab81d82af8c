"""Hypothesis strategies and brute-force references for the KAPR tests."""

from __future__ import annotations

from fractions import Fraction

from hypothesis import strategies as st

from app.core.disclosure import AttributeType
from app.core.kapr import (
    SIDES,
    AnonymityIndex,
    Evidence,
    Marker,
    PairView,
    consistent,
    count_pair,
    count_pair_reference,
)

KINDS = {
    "name": AttributeType.STRING,
    "dob": AttributeType.DATE,
    "race": AttributeType.CATEGORY,
    "ident": AttributeType.ID,
}
ATTRS = list(KINDS)
_VALUES = {
    "name": st.one_of(st.none(), st.text("ab", min_size=1, max_size=4)),
    "dob": st.one_of(
        st.none(), st.sampled_from(["01/02/1960", "02/01/1960", "01/02/1961", "1990-11-12"])
    ),
    "race": st.one_of(st.none(), st.sampled_from(["A", "B", "Black"])),
    "ident": st.text("01", min_size=2, max_size=3),
}


@st.composite
def columns(draw, min_size: int = 2, max_size: int = 10) -> dict[str, list[str | None]]:
    """Draw one small source whose values often collide."""
    n = draw(st.integers(min_size, max_size))
    return {a: draw(st.lists(_VALUES[a], min_size=n, max_size=n)) for a in ATTRS}


def values(index: AnonymityIndex, position: int) -> dict[str, str | None]:
    return {a: index.value(a, position) for a in ATTRS}


def levels(value: str | None, attribute: str) -> list[Evidence]:
    """Return a chain of ever finer evidence for one value, from masked to full."""
    chain = [Evidence.masked(value)]
    if value is not None and KINDS[attribute] is not AttributeType.CATEGORY:
        chain += [Evidence.partial(value, range(i)) for i in range(1, len(value))]
    chain.append(Evidence.full(value, category=KINDS[attribute] is AttributeType.CATEGORY))
    return chain


@st.composite
def cell(draw, value: str | None, attribute: str) -> Evidence:
    """Draw any evidence of ``value`` (any subset of positions at partial)."""
    partial_ok = value is not None and KINDS[attribute] is not AttributeType.CATEGORY
    level = draw(
        st.sampled_from(["masked", "full", "partial"] if partial_ok else ["masked", "full"])
    )
    if level == "masked":
        return Evidence.masked(value)
    if level == "full":
        return Evidence.full(value, category=KINDS[attribute] is AttributeType.CATEGORY)
    return Evidence.partial(value, draw(st.sets(st.integers(0, len(value) - 1))))


@st.composite
def row(draw, value: dict[str, str | None]) -> dict[str, Evidence]:
    return {a: draw(cell(value[a], a)) for a in ATTRS}


@st.composite
def display(draw, left: AnonymityIndex, right: AnonymityIndex, max_pairs: int = 4, truth=False):
    """Draw displayed pairs of two different records with evidence and true markers.

    With ``truth`` also return the displayed records' positions, ``(left, right)`` per pair.
    """
    pairs, records = [], []
    for _ in range(draw(st.integers(1, max_pairs))):
        i = draw(st.integers(0, left.n - 1))
        j = draw(st.integers(0, right.n - 1).filter(lambda j, i=i: left is not right or j != i))
        lv, rv = values(left, i), values(right, j)
        markers = {a: Marker.between(lv[a], rv[a]) for a in ATTRS}
        pairs.append(PairView(draw(row(lv)), draw(row(rv)), markers))
        records.append((i, j))
    return (pairs, records) if truth else pairs


def brute_candidates(index: AnonymityIndex, evidence_row) -> list[int]:
    """Scan every record (the reference for the ``row`` model)."""
    return [
        r
        for r in range(index.n)
        if all(consistent(index.value(a, r), ev) for a, ev in evidence_row.items())
    ]


def brute_pair_k(pair: PairView, side: str, left: AnonymityIndex, right: AnonymityIndex) -> int:
    """Count ``k_i`` under the ``pair`` model by checking every (r, r') (its definition)."""
    mine, theirs = (left, right) if side == "left" else (right, left)
    other = "right" if side == "left" else "left"
    partners = brute_candidates(theirs, pair.row(other))
    count = 0
    for r in brute_candidates(mine, pair.row(side)):
        for q in partners:
            if mine is theirs and q == r:
                continue
            lv, rv = (values(mine, r), values(theirs, q))
            if side == "right":
                lv, rv = rv, lv
            if all(Marker.between(lv[a], rv[a]) == m for a, m in pair.markers.items()):
                count += 1
                break
    return count


def brute_pair_risk(pair: PairView, left, right, model: str) -> Fraction:
    """Return a pair's unscaled term by brute force."""
    total = Fraction(0)
    for side, index in zip(SIDES, (left, right), strict=True):
        p = sum((ev.p for ev in pair.row(side).values()), Fraction(0))
        if p:
            k = (
                len(brute_candidates(index, pair.row(side)))
                if model == "row"
                else brute_pair_k(pair, side, left, right)
            )
            total += p / k
    return total


def assert_count_pair_exact(row, partner, markers, index: AnonymityIndex) -> None:
    """``count_pair`` equals the reference on both sides, each counted afresh (no count
    remembered from the other side)."""
    for side in SIDES:
        expected = count_pair_reference(row, partner, markers, side, index, index)
        index.pair_counts.clear()
        assert count_pair(row, partner, markers, side, index, index) == expected
