"""The disclosure advisor: which cell is worth its privacy cost (docs/advice.md §4).

For a displayed pair, the value of opening an attribute's masked cells one level is the
expected gain in P(correct decision),

    gain(a) = Σ_z P(z | display) · C(display + z) - C(display),
    C(d) = Σ_y P(y | d) · P(reviewer answers y | d, y),

(for a masked step that ends at partial, ``C(display + z)`` is the better of reading ``z`` at
partial and at full: opening on is an option, priced when it is the next step's preview)

with ``z`` the class the attribute's characters would show, ``P(z | display)`` and ``P(y | d)``
from the world model (:class:`app.core.advice.models.world.World`) and the answers from a reviewer
model (:mod:`app.core.advice.models.reviewers`). The expectation is over what the worker has *not*
seen: the inputs are a :class:`~app.core.advice.display.state.Shown` (what the page draws) and the
next-reveal costs the page previews, so the advice is a function of the displayed state.

An attribute is read once every side with a marked character shows it, at partial or full
(people read a partial value otherwise than a whole one), so a step opens the masked marked
sides (to partial where partial shows something new), then the partial ones (to full): it may
open two cells, one per row; each of its cells carries the step's gain and cost (the sum of
the cells' previewed KAPR costs, the same function that charges a reveal; exact under the ``row``
evidence model, where a reveal changes only its own row's costs). The suggestion is the
cheaper cell of the step with the most gain per unit of cost among those gaining at least
``min_gain`` and affordable within ``room``. The display suffices when no step gains
``min_gain``; a step worth it that the budget cannot pay leaves no suggestion, and the display
does not suffice.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from fractions import Fraction

from app.core.advice.display.state import Shown
from app.core.advice.models.reviewers import Reviewer, expected_correct
from app.core.advice.models.world import World

__all__ = ["MIN_GAIN", "Advice", "CellAdvice", "advise"]

#: Smallest expected gain in P(correct) worth a reveal: three decisions in a hundred
#: (bench/advisor.py prints the advisor at 0.01, 0.02, 0.03 and 0.05: docs/advice.md §4).
MIN_GAIN = 0.03


@dataclass(frozen=True)
class CellAdvice:
    """One cell with a next level: its step's gain, its own previewed cost, its step's cost
    and gain per unit of that cost (``None`` when the step gains nothing)."""

    row: int
    attribute: str
    gain: float
    cost: Fraction
    step_cost: Fraction
    per_cost: float | None


@dataclass(frozen=True)
class Advice:
    p_correct: float
    cells: tuple[CellAdvice, ...]
    suggestion: tuple[int, str] | None
    suffices: bool


def advise(
    shown: Shown,
    costs: Mapping[tuple[int, str], Fraction],
    reviewer: Reviewer,
    world: World,
    *,
    min_gain: float = MIN_GAIN,
    room: Fraction | None = None,
) -> Advice:
    """Advise on one displayed pair (module docs).

    ``costs`` maps ``(row, attribute)`` to the previewed KAPR cost of the cell's next reveal
    (cells with nothing further to reveal are absent); ``room`` is what the budget has left
    (``None``: no limit).
    """
    reading = shown.reading()
    now = expected_correct(reviewer, world, reading)
    steps = {}
    for attribute in shown.attributes:
        rows = attribute.step()
        if not rows or any((r, attribute.name) not in costs for r in rows):
            continue
        partial = attribute.step_ends_partial()
        read = next(r for r in reading.reads if r.name == attribute.name)
        if read.z is None:  # the characters are hidden: expect over what they may show
            outcomes = world.shown_distribution(reading, attribute.name).items()
        else:  # seen at partial: the whole values read the same class, otherwise
            outcomes = ((read.z, 1.0),)
        after = 0.0
        for z, p in outcomes:
            best = expected_correct(reviewer, world, reading.with_shown(attribute.name, z, partial))
            if partial and read.z is None:  # with the option to open on to full
                whole = reading.with_shown(attribute.name, z, False)
                best = max(best, expected_correct(reviewer, world, whole))
            after += p * best
        cost = sum((costs[r, attribute.name] for r in rows), Fraction(0))
        steps[attribute.name] = (rows, after - now, cost)
    cells, best, best_key = [], None, None
    for (row, name), cost in sorted(costs.items(), key=lambda kv: (kv[0][1], kv[0][0])):
        rows, gain, step_cost = steps.get(name, ((), 0.0, cost))
        gain = gain if row in rows else 0.0
        per = _per_cost(gain, step_cost) if gain > 0 else None
        cells.append(CellAdvice(row, name, gain, cost, step_cost, per))
    worth = {name: step for name, step in steps.items() if step[1] >= min_gain}
    for name, (rows, gain, step_cost) in worth.items():
        if room is not None and step_cost > room:
            continue
        key = (_per_cost(gain, step_cost), gain, -_position(shown, name))
        if best_key is None or key > best_key:
            cheapest = min(rows, key=lambda r: (costs[r, name], r))
            best, best_key = (cheapest, name), key
    return Advice(now, tuple(cells), best, not worth)


def _per_cost(gain: float, cost: Fraction) -> float:
    return math.inf if cost <= 0 else gain / float(cost)


def _position(shown: Shown, name: str) -> int:
    return next(i for i, a in enumerate(shown.attributes) if a.name == name)
