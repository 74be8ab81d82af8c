"""Replay an assignment's reveals one by one and audit the display after each (read-only).

The state before the first reveal is the stored state with every revealed cell put back to the
``level_from`` of its first reveal event (cells opened at the start, ``start_partial``, stay as
stored). Each event then sets its cell to ``level_to``; only that pair is audited again. Along
the trail the total non-specificity never increases (more evidence, smaller candidate sets),
and the last step equals the audit of the stored state.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction

from sqlalchemy import select

from app.analytics.belief.state import Scope, displayed_pair
from app.analytics.kapr import pooled_state
from app.core.belief import audit_pair, summarise
from app.core.disclosure import Level
from app.extensions import db
from app.models import Pair, RevealEvent


@dataclass(frozen=True)
class TrailStep:
    """The display after one reveal (``event`` None: before the first)."""

    event: int | None
    pair: int | None
    row: int | None
    attribute: str | None
    level: str | None
    kapr_charged: Fraction  # the KAPR the reveal path recorded after this event
    kapr: Fraction  # KAPR recomputed by the audit
    mean_true_probability: Fraction
    max_true_probability: Fraction
    unique_rows: int
    nonspecificity_bits: float


def audit_trail(scope: Scope) -> list[TrailStep]:
    """Audit ``scope.assignment`` after every one of its reveals, in order."""
    assignment, project = scope.assignment, scope.project
    if assignment is None:
        raise ValueError("a trail follows one assignment")
    names = {a.id: a.name for a in project.identifying}
    events = db.session.scalars(
        select(RevealEvent)
        .join(Pair, Pair.id == RevealEvent.pair_id)
        .where(RevealEvent.assignment_id == assignment.id, Pair.project_id == project.id)
        .order_by(RevealEvent.id)
    ).all()  # the project's own pairs: a synthetic check's reveals disclose nobody
    stored = pooled_state(project, [assignment.id])
    levels = {state.pair_id: dict(state.levels) for state in stored.states if state.levels}
    seen: set = set()
    for event in events:  # undo every reveal: the first event's level_from is the start
        key = (event.pair_id, event.row, names.get(event.attribute_id))
        if key[2] is not None and key not in seen:
            seen.add(key)
            levels.setdefault(event.pair_id, {})[key[1], key[2]] = Level(event.level_from)
    pairs = {p.id: p for p in stored.pairs}
    cache: dict = {}

    def audit(pair_id: int):
        shown = displayed_pair(project, pairs[pair_id], levels.get(pair_id, {}))
        return audit_pair(shown, scope.model, (scope.model,), cache)

    rows = {pid: audit(pid) for pid in pairs}
    scale = Fraction(project.kappa, max(2 * len(pairs), 1) * max(len(names), 1))
    start = events[0].kapr_before_exact if events else assignment.kapr_exact
    steps = [_step(None, None, rows, project.kappa, scale, Fraction(start))]
    for event in events:
        attribute = names.get(event.attribute_id)
        if attribute is None or event.pair_id not in pairs:
            continue
        levels.setdefault(event.pair_id, {})[event.row, attribute] = Level(event.level_to)
        rows[event.pair_id] = audit(event.pair_id)
        charged = Fraction(event.kapr_after_exact)
        steps.append(_step(event, attribute, rows, project.kappa, scale, charged))
    return steps


def _step(event, attribute, rows: dict, kappa: int, scale: Fraction, charged) -> TrailStep:
    summary = summarise([r for pair in rows.values() for r in pair], kappa, scale)
    return TrailStep(
        event=event.id if event else None,
        pair=event.pair_id if event else None,
        row=event.row if event else None,
        attribute=attribute,
        level=event.level_to if event else None,
        kapr_charged=charged,
        kapr=summary.kapr,
        mean_true_probability=summary.mean_true_probability,
        max_true_probability=summary.max_true_probability,
        unique_rows=summary.unique_rows,
        nonspecificity_bits=summary.nonspecificity_bits,
    )
