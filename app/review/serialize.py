"""JSON shapes of the worker API (docs/api.md): only what each cell's level discloses."""

from __future__ import annotations

from fractions import Fraction

from app.review.state import PairState


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


def pair_json(state: PairState, position: int, costs: dict, room: Fraction, decision=None,
              frequencies: dict | None = None) -> dict:
    """One pair; ``frequencies`` maps ``(pair_id, row)`` to its name-frequency classes."""
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
        "id": state.pair_id,
        "position": position,
        "name_swap": state.name_swap,
        "markups": {name: sorted(cmp.markups) for name, cmp in state.comparisons.items()},
        "decision": None if decision is None else {
            "decision": decision.decision, "confidence": decision.confidence},
        "rows": rows,
    }


def meters_json(assignment, kapr: Fraction, bounded: bool = True) -> dict:
    total = assignment.chars_total
    return {
        "budget": assignment.budget,
        "kapr": float(kapr),
        "kapr_exact": str(kapr),
        "kapr_bounded": bounded,
        "characters": {
            "disclosed": assignment.chars_disclosed,
            "total": total,
            "percent": round(100 * assignment.chars_disclosed / total, 2) if total else 0.0,
        },
    }
