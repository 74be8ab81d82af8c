"""JSON shapes of the worker API (docs/api.md): only what each cell's level discloses.

:func:`page_json` and :func:`reveal_json` assemble the answers from :mod:`app.review.services`.
"""

from __future__ import annotations

from fractions import Fraction

from app.extensions import db
from app.models import CLEARED
from app.review import services
from app.review.breaks import current_session
from app.review.grid import PairState
from app.review.handles import names_of
from app.review.meters import meters


def cell_json(state: PairState, row: int, attribute: str, cost: Fraction | None, room: Fraction):
    cell = state.view(row, attribute)
    next_level = state.next_level(row, attribute)
    return {
        "level": cell.level.value,
        "next_level": next_level.value if next_level else None,
        "display": [_segment(s) for s in cell.segments],
        "disclosed": cell.disclosed,
        "total": cell.total,
        "next_cost": None if cost is None else float(cost),
        "next_cost_exact": None if cost is None else str(cost),
        "affordable": cost is not None and cost <= room,
    }


def _segment(segment) -> dict:
    out = {"kind": segment.kind, "text": segment.text}
    if segment.mark:
        out["mark"] = segment.mark
    return out


def pair_json(
    state: PairState,
    position: int,
    costs: dict,
    room: Fraction,
    decision=None,
    frequencies: dict | None = None,
    name: int | None = None,
) -> dict:
    """One pair; ``decision`` is its newest decision event (a clear, or None: no answer),
    ``frequencies`` maps ``(pair_id, row)`` to its name-frequency classes, ``name`` is what
    the worker calls the pair (its handle in an assignment with checks; default its id)."""
    rows = []
    for row in (0, 1):
        cells = {
            a.name: cell_json(state, row, a.name, costs.get((state.pair_id, row, a.name)), room)
            for a in state.attributes
        }
        entry = {"row": row, "cells": cells}
        if frequencies and (state.pair_id, row) in frequencies:
            entry["frequency"] = frequencies[state.pair_id, row]
        rows.append(entry)
    return {
        "id": state.pair_id if name is None else name,
        "position": position,
        "name_swap": state.name_swap,
        "markups": {name: sorted(cmp.markups) for name, cmp in state.comparisons.items()},
        "decision": None
        if decision is None or decision.decision == CLEARED
        else {"decision": decision.decision, "confidence": decision.confidence},
        # The answer's version: send it back with the next answer to detect another tab.
        "answer_version": None if decision is None else decision.id,
        "rows": rows,
    }


def meters_json(assignment, kapr: Fraction, bounded: bool = True) -> dict:
    """The worker's meters: the real pairs' characters and the synthetic checks' together."""
    a = assignment
    shown, total = (
        a.chars_disclosed + a.checks_chars_disclosed,
        a.chars_total + a.checks_chars_total,
    )
    return meters(a.budget, kapr, shown, total, bounded)


def page_json(ctx: services.Context, page: int) -> dict:
    """The JSON of one page of an assignment (docs/api.md)."""
    from app.review.answers import newest_events, progress
    from app.review.grid import page_frequencies

    pairs, pages = services.page_of(ctx, page)
    states = services.pair_states(ctx, pairs)
    costs = services.page_costs(ctx, pairs, states)
    room = ctx.budget - ctx.kapr
    decisions = newest_events(ctx.assignment.id, [p.id for p in pairs])
    frequencies = page_frequencies(ctx, pairs, states)
    first = (page - 1) * ctx.project.page_size
    decided, total = progress(ctx.assignment.id)
    names = names_of(ctx.assignment.id, [p.id for p in pairs])
    project = ctx.project
    return {
        "assignment": {
            "id": ctx.assignment.id,
            "project": {"id": project.id, "name": project.name},
            **meters_json(ctx.assignment, ctx.kapr),
            "page": page,
            "pages": pages,
            "page_size": project.page_size,
            "pairs_total": total,
            "decided": decided,
            "evidence_model": project.evidence_model,
            "allow_unsure": project.allow_unsure,
            "paused": ctx.assignment.paused,
            "break": current_session(
                db.session,  # a query only when the project sets a break
                ctx.assignment.id,
                project.break_minutes,
                project.break_decisions,
            ).as_dict(),
        },
        "attributes": [{"name": a.name, "type": a.kind.value} for a in ctx.attributes],
        "pairs": [
            {
                **pair_json(
                    s,
                    first + i,
                    costs,
                    room,
                    decisions.get(s.pair_id),
                    frequencies,
                    names[s.pair_id],
                ),
                **(scores_json(pair) if project.show_scores else {}),
            }
            for i, (s, pair) in enumerate(zip(states, pairs, strict=True))
        ],
    }


def scores_json(pair) -> dict:
    """The linker's scores and rule of a pair, for a project that shows them to workers
    (``Project.show_scores``, off by default). Purpose and round are never shown: knowing a
    pair was drawn for calibration, or decided by the model, would bias the answer."""
    return {
        "scores": {
            "match_probability": pair.match_probability,
            "match_weight": pair.match_weight,
            "match_key": pair.rule if pair.match_probability is not None else None,
        }
    }


def reveal_json(result: services.RevealResult, name: int | None = None) -> dict:
    """The JSON answer to a reveal: the revealed cell, the next costs that changed and the
    meters (docs/api.md). A reveal changes its own pair's term only (``app.core.kapr.score``), and
    under the ``row`` model only its own row's costs; other cells' affordability follows
    from the meters, which the client applies."""
    state = result.state
    rows = (result.row,) if result.scale["model"] == "row" else (0, 1)
    costs = services.state_costs(state, result.indexes, result.scale, rows)
    room = Fraction(repr(result.budget)) - result.kapr
    changed = {}
    for row in rows:
        cells = {}
        for attribute in state.attributes:
            cost = costs.get((state.pair_id, row, attribute.name))
            next_level = state.next_level(row, attribute.name)
            cells[attribute.name] = {
                "next_level": next_level.value if next_level else None,
                "next_cost": None if cost is None else float(cost),
                "next_cost_exact": None if cost is None else str(cost),
                "affordable": cost is not None and cost <= room,
            }
        changed[str(row)] = cells
    cell_cost = costs.get((state.pair_id, result.row, result.attribute))
    return {
        "pair_id": result.pair_id if name is None else name,
        "position": result.position,
        "row": result.row,
        "attribute": result.attribute,
        "cell": cell_json(state, result.row, result.attribute, cell_cost, room),
        "costs": changed,
        "cost": float(result.cost),
        "cost_exact": str(result.cost),
        "assignment": meters(
            result.budget, result.kapr, result.chars_disclosed, result.chars_total
        ),
    }
