"""One pair's KAPR term and the change of a single reveal in it (paper Definition 4.6).

:class:`PairCosts` is the one function that prices a reveal: :func:`app.core.kapr.score.reveal_cost`
(the charge) and :func:`app.core.kapr.score.next_costs` (the preview) both call
:meth:`PairCosts.delta`. A pair's term depends only on its two rows and their markers, under
both evidence models, so a reveal changes that term and no other.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from fractions import Fraction
from typing import Literal

import numpy as np

from app.core.kapr.anonymity import AnonymityIndex
from app.core.kapr.evidence import Evidence, Markers, Row
from app.core.kapr.pair.count import count_pair

__all__ = ["SIDES", "Model", "PairCosts", "PairRisk", "PairView", "RowQuery", "Side", "disclosed"]

Model = Literal["row", "pair"]
Side = Literal["left", "right"]
_ROW_COUNTS = 1 << 15  # remembered row-model counts per index (~10 MB at most)
SIDES: tuple[Side, Side] = ("left", "right")


@dataclass(frozen=True, slots=True)
class PairView:
    """One displayed pair: the evidence of both rows and the markers between them."""

    left: Row
    right: Row
    markers: Markers = field(default_factory=dict)

    def row(self, side: Side) -> Row:
        return self.left if side == "left" else self.right

    def with_cell(self, side: Side, attribute: str, evidence: Evidence) -> PairView:
        """Return the pair after ``attribute`` of ``side`` shows ``evidence``."""
        row = {**self.row(side), attribute: evidence}
        if side == "left":
            return PairView(row, self.right, self.markers)
        return PairView(self.left, row, self.markers)


@dataclass(frozen=True, slots=True)
class PairRisk:
    """A pair's unscaled term and its rows' ``k_i`` (``None`` for a row disclosing nothing)."""

    value: Fraction
    k: tuple[int | None, int | None]


def disclosed(row: Row) -> Fraction:
    """Return ``Σ_j p_ij`` of one row (Definition 4.3)."""
    num, den = 0, 1  # summed as integers, one Fraction at the end (a hot path)
    for evidence in row.values():
        d, n = _ratio(evidence)
        if d:
            num, den = num * n + d * den, den * n
    return Fraction(num, den)


def _term(p: Fraction, k: int | None) -> Fraction:
    if not p:
        return Fraction(0)
    if not k:
        raise ValueError("a disclosing row matches no record: evidence and index disagree")
    return p / k


class RowQuery:
    """A row's ``row``-model constraints and candidates, reused for its next reveals.

    Counts are remembered on the index by constraint set (:attr:`AnonymityIndex.row_counts`):
    a page's rows are counted again on every preview, reload and reveal answer. The key holds
    the :class:`Constraint` objects themselves (compared by identity, one object per cell
    evidence in the index's cache), so it can never stand for another set.
    """

    def __init__(self, index: AnonymityIndex, row: Row) -> None:
        self.index, self.row = index, row
        self.constraints = index.constraints(row)
        self._candidates: np.ndarray | None = None

    def candidates(self) -> np.ndarray:
        if self._candidates is None:
            self._candidates = self.index.select(self.constraints)
        return self._candidates

    def k(self) -> int:
        if self._candidates is not None:
            return len(self._candidates)
        key = frozenset(self.constraints.values())
        found = self.index.row_counts.get(key)
        if found is None:
            found = self._remember(key, self.index.select(self.constraints, count_only=True))
        return found

    def with_cell(self, attribute: str, evidence: Evidence, *, count_only: bool):
        """Return the records (or their number) once ``attribute`` shows ``evidence``."""
        new = self.index.constraint(attribute, evidence)
        constraints = {a: c for a, c in self.constraints.items() if a != attribute}
        if new is not None:
            constraints[attribute] = new
        if not count_only:
            return self._select(constraints, attribute, evidence, new, count_only=False)
        key = frozenset(constraints.values())
        found = self.index.row_counts.get(key)
        if found is None:
            counted = self._select(constraints, attribute, evidence, new, count_only=True)
            found = self._remember(key, counted)
        return found

    def _remember(self, key: frozenset, count: int) -> int:
        counts = self.index.row_counts
        if len(counts) >= _ROW_COUNTS:
            counts.clear()
        counts[key] = count
        return count

    def _select(self, constraints, attribute, evidence, new, *, count_only: bool):
        if count_only and len(constraints) <= 1 or new is None:
            return self.index.select(constraints, count_only=count_only)
        if count_only and (counted := self.index.cube_count(constraints)) is not None:
            return counted
        fresh = min(c.size for c in constraints.values())
        if self.constraints and evidence.refines(self.row.get(attribute)):
            current = self._candidates
            size = (
                len(current)
                if current is not None
                else min(c.size for c in self.constraints.values())
            )
            if size <= fresh:  # filter the current set by the one new constraint
                kept = self.index.refine(self.candidates(), new)
                return len(kept) if count_only else kept
        return self.index.select(constraints, count_only=count_only)


class PairCosts:
    """Evaluate one pair's term and the change of any single reveal in it."""

    def __init__(self, pair: PairView, indexes: tuple[AnonymityIndex, AnonymityIndex], model):
        if model not in ("row", "pair"):
            raise ValueError(f"unknown evidence model {model!r}")
        self.pair, self.indexes, self.model = pair, indexes, model
        self.queries = {s: RowQuery(indexes[i], pair.row(s)) for i, s in enumerate(SIDES)}
        self.p = {s: disclosed(pair.row(s)) for s in SIDES}
        self._risk: PairRisk | None = None
        self._terms: dict[Side, Fraction] = {}

    def risk(self) -> PairRisk:
        if self._risk is None:
            if self.model == "row":
                ks = tuple(self.queries[s].k() if self.p[s] else None for s in SIDES)
            else:
                left, right = self.queries["left"], self.queries["right"]
                ks = self._pair_ks(self.pair, left.candidates, right.candidates)
            self._terms = {s: _term(self.p[s], k) for s, k in zip(SIDES, ks, strict=True)}
            self._risk = PairRisk(sum(self._terms.values(), Fraction()), ks)
        return self._risk

    def _pair_ks(self, pair: PairView, left, right) -> tuple[int | None, int | None]:
        cands = {"left": left, "right": right}
        ks: list[int | None] = []
        for i, side in enumerate(SIDES):
            other = SIDES[1 - i]
            if not disclosed(pair.row(side)):
                ks.append(None)
                continue
            mine, theirs = cands[side], cands[other]
            ks.append(
                count_pair(
                    pair.row(side),
                    pair.row(other),
                    pair.markers,
                    side,
                    self.indexes[i],
                    self.indexes[1 - i],
                    candidates=mine,
                    partner_candidates=theirs,
                )
            )
        return ks[0], ks[1]

    def delta(
        self, side: Side, attribute: str, evidence: Evidence, scale: Fraction | int = 1
    ) -> Fraction:
        """Return ``scale · (pair_risk(after) - pair_risk(before))`` for one reveal."""
        if self.model == "pair":
            return scale * self._pair_delta(side, attribute, evidence)
        query = self.queries[side]
        self.risk()  # the terms before the reveal
        # p after the reveal as an integer ratio, and one Fraction at the end: a page
        # previews ~120 cells, and Fraction arithmetic would dominate its cost.
        p0, (do, no), (de, ne) = self.p[side], _ratio(query.row.get(attribute)), _ratio(evidence)
        num = (p0.numerator * no - do * p0.denominator) * ne + de * p0.denominator * no
        den = p0.denominator * no * ne
        if num:
            k = query.with_cell(attribute, evidence, count_only=True)
            if not k:
                _term(Fraction(num, den), k)  # raises: evidence and index disagree
            den *= k
        old = self._terms[side]
        scale = scale if isinstance(scale, Fraction) else Fraction(scale)
        return Fraction(
            (num * old.denominator - old.numerator * den) * scale.numerator,
            den * old.denominator * scale.denominator,
        )

    def _pair_delta(self, side: Side, attribute: str, evidence: Evidence) -> Fraction:
        query = self.queries[side]
        before = self.risk()
        after = self.pair.with_cell(side, attribute, evidence)
        # Candidates only when a count is not remembered (count_pair calls these lazily).
        changed = _Lazy(lambda: query.with_cell(attribute, evidence, count_only=False))
        other = "right" if side == "left" else "left"
        rows = {side: changed, other: self.queries[other].candidates}
        ks = self._pair_ks(after, rows["left"], rows["right"])
        value = sum(
            (_term(disclosed(after.row(s)), k) for s, k in zip(SIDES, ks, strict=True)),
            Fraction(),
        )
        return value - before.value


class _Lazy:
    """A value computed on first call, then kept (a row's candidates after one reveal)."""

    def __init__(self, make) -> None:
        self._make, self._value = make, None

    def __call__(self):
        if self._value is None:
            self._value = self._make()
        return self._value


def _ratio(evidence: Evidence | None) -> tuple[int, int]:
    """Return ``p`` of a cell as ``(disclosed, characters)``, ``(0, 1)`` when it has none."""
    if evidence is None or not evidence.total:
        return 0, 1
    return len(evidence.known), evidence.total
