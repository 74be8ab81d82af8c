"""Disclosure policies side by side (docs/advice.md §5): each opens a pair's cells its own way,
and a reviewer model answers on the display it ends with.

- ``reveal-all``: every cell full (the application's last level);
- ``baseline``, ``full``, ``moderate``, ``low``, ``masked``: the CHI 2018 study's displays
  (:func:`app.core.advice.study.display_levels`);
- ``cheapest``: the cheapest next reveal, one level at a time, while the pair's budget lasts;
- ``random``: a random next reveal (seeded), one level at a time, while the budget lasts;
- ``advisor``: the advisor's suggestion, one level at a time, until the display suffices (and,
  with a budget, while the step fits in what is left of it).

A pair's KAPR is its term ``κ/(N·D) · Σ_i p_i/k_i`` (paper Definition 4.6) with ``N`` the rows
of the pair's assignment; every reveal's cost is the preview of :func:`app.core.kapr.next_costs`.
"""

from __future__ import annotations

import random
from collections.abc import Mapping
from dataclasses import dataclass
from fractions import Fraction

from app.core.advice.advisor import MIN_GAIN, advise
from app.core.advice.display.state import Shown, levels_of, shown_pair
from app.core.advice.models.reviewers import Reviewer, respond
from app.core.advice.models.world import World
from app.core.advice.study.data import DISPLAYS, display_levels
from app.core.disclosure import AttributeType, Comparison, Level, format_date, next_level, shown
from app.core.kapr import AnonymityIndex, Evidence, Marker, PairView, kapr, next_costs, pair_risk

__all__ = ["POLICIES", "Case", "Outcome", "raw_columns", "run_policy"]

POLICIES = ("reveal-all", *DISPLAYS.values(), "cheapest", "random", "advisor")
_STEPS = 200  # a bound on one pair's reveals (a pair has at most 2·D·2 of them)


@dataclass
class Case:
    """One pair to review: its comparisons by attribute, the sources' indexes, the KAPR
    scale (``kappa``, ``n_rows`` of its assignment, ``n_attributes``, ``model``)."""

    key: tuple
    comparisons: Mapping[str, Comparison]
    indexes: tuple[AnonymityIndex, AnonymityIndex]
    scale: Mapping
    truth: bool | None = None
    swapped: frozenset[str] = frozenset()
    rare: frozenset[str] = frozenset()
    shown_always: tuple[str, ...] = ()

    def shown(self, levels, markup: bool = True) -> Shown:
        return shown_pair(
            self.comparisons, levels, name_swap=self.swapped, rare=self.rare, markup=markup
        )

    def levels_read(self) -> dict[str, tuple[str, str]]:
        """The world model's level of each attribute (for estimating its tables)."""
        return levels_of(self.comparisons, name_swap=self.swapped, rare=self.rare)

    def view(self, levels) -> PairView:
        rows = [
            {
                a: _evidence(c, row, levels.get((row, a), Level.MASKED))
                for a, c in self.comparisons.items()
            }
            for row in (0, 1)
        ]
        markers = {a: Marker.between(*c.values) for a, c in self.comparisons.items()}
        return PairView(rows[0], rows[1], markers)

    def costs(self, levels) -> dict[tuple[int, str], Fraction]:
        """The preview of every cell's next reveal, as the worker's page shows it."""

        def following(_n, side, attribute):
            row = 0 if side == "left" else 1
            cmp = self.comparisons[attribute]
            level = next_level(cmp, row, levels.get((row, attribute), Level.MASKED))
            return None if level is None else _evidence(cmp, row, level)

        found = next_costs([self.view(levels)], following, *self.indexes, **self.scale)
        return {(0 if s == "left" else 1, a): c for (_n, s, a), c in found.items()}

    def kapr(self, levels) -> Fraction:
        view = self.view(levels)
        risk = pair_risk(view.left, view.right, view.markers, *self.indexes, self.scale["model"])
        scale = {k: v for k, v in self.scale.items() if k != "model"}
        return kapr([risk], **scale)


def _evidence(cmp: Comparison, row: int, level: Level) -> Evidence:
    return Evidence.trusted(level, cmp.total(row), shown(cmp, row, level))


@dataclass(frozen=True)
class Outcome:
    levels: dict
    p_correct: float
    chars_shown: int
    chars_total: int
    kapr: Fraction
    reveals: int


def run_policy(
    case: Case,
    policy: str,
    reviewer: Reviewer,
    world: World,
    *,
    budget: Fraction | None = None,
    seed: int = 1,
    min_gain: float = MIN_GAIN,
) -> Outcome:
    """Open ``case``'s cells by ``policy`` and answer with ``reviewer`` (module docs)."""
    if policy not in POLICIES:
        raise ValueError(f"unknown policy {policy!r} (one of {', '.join(POLICIES)})")
    markup = policy != "baseline"
    levels: dict = {}
    reveals = 0
    if policy == "reveal-all":
        levels = {
            (r, a): Level.FULL
            for a, c in case.comparisons.items()
            for r in (0, 1)
            if c.values[r] is not None
        }
    elif policy in DISPLAYS.values():
        levels = display_levels(case.comparisons, policy, shown_always=case.shown_always)
    else:
        rng = random.Random(f"{seed}:{case.key}")
        spent = Fraction(0)
        for _ in range(_STEPS):
            costs = case.costs(levels)
            room = None if budget is None else budget - spent
            cell = _next_cell(case, policy, levels, costs, room, reviewer, world, rng, min_gain)
            if cell is None:
                break
            row, attribute = cell
            cmp = case.comparisons[attribute]
            levels[cell] = next_level(cmp, row, levels.get(cell, Level.MASKED))
            spent += costs[cell]
            reveals += 1
    shown_now = case.shown(levels, markup)
    answer = respond(reviewer, world, shown_now.reading(), case.truth)
    disclosed = sum(s.known.__len__() for a in shown_now.attributes for s in a.sides)
    total = sum(c.total(r) for c in case.comparisons.values() for r in (0, 1))
    return Outcome(levels, answer.p_correct, disclosed, total, case.kapr(levels), reveals)


def _next_cell(case, policy, levels, costs, room, reviewer, world, rng, min_gain):
    if policy == "advisor":
        advice = advise(case.shown(levels), costs, reviewer, world, min_gain=min_gain, room=room)
        return advice.suggestion
    affordable = [c for c, cost in costs.items() if room is None or cost <= room]
    if room is None or not affordable:
        return None  # cheapest and random need a budget to stop
    if policy == "cheapest":
        return min(affordable, key=lambda c: (costs[c], c[1], c[0]))
    return rng.choice(sorted(affordable, key=lambda c: (c[1], c[0])))


def raw_columns(records, kinds) -> dict[str, list[str | None]]:
    """Columns of normalised records as :meth:`AnonymityIndex.build` reads them (dates back
    in ``MM/DD/YYYY``)."""
    return {
        a: [
            format_date(r[a]) if kind is AttributeType.DATE and r[a] is not None else r[a]
            for r in records
        ]
        for a, kind in kinds.items()
    }
