"""JSON Schemas of the pairs routes (``app/api/pairs.py``): rounds, the pairs listing and its
query, the predictions upload's query (docs/triage.md). Pairs and triage themselves are in
:mod:`app.api.openapi.projects`, beside the project description that takes them."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from app.api.openapi.projects import TRIAGE, pairs
from app.api.openapi.schemas import ID, OBJECT


def round_spec(config: Mapping[str, Any]) -> dict[str, Any]:
    """A new round: scored ``pairs`` (with ``triage``), or ``blocking`` / ``reblock`` rules."""
    rules = {"type": "array", "maxItems": 50, "items": {"type": ["object", "array", "string"]}}
    return {
        "type": "object",
        "properties": {
            "pairs": pairs(config),
            "triage": TRIAGE,
            "blocking": rules,
            "reblock": rules,
        },
    }


SETTINGS_BODY = {
    "type": "object",
    "minProperties": 1,
    "additionalProperties": False,
    "properties": {
        "show_scores": {"type": "boolean"},
        "advice_hint": {"type": "boolean"},
        "advice_reviewer": {"enum": ["human", "evidence"]},
        # reviewer quality (docs/quality.md): the alert's threshold and the break reminder
        "alert_error_rate": {"type": "number", "exclusiveMinimum": 0, "exclusiveMaximum": 1},
        "break_minutes": {"type": ["integer", "null"], "minimum": 1, "maximum": 2**31 - 1},
        "break_decisions": {"type": ["integer", "null"], "minimum": 1, "maximum": 2**31 - 1},
    },
}
ROUND = {
    "type": "object",
    "required": ["round", "origin", "counts"],
    "properties": {
        "round": {"type": "integer"},
        "origin": {"type": "string"},
        "counts": OBJECT,
        "triage": {"type": ["object", "null"]},
    },
}
ROUNDS = {
    "type": "object",
    "required": ["rounds"],
    "properties": {"rounds": {"type": "array", "items": OBJECT}},
}
TRIAGE_PREVIEW = {
    "type": "object",
    "required": ["counts", "histogram", "sources"],
    "properties": {"counts": OBJECT, "histogram": OBJECT, "sources": OBJECT},
}
PAIR_LIST = {
    "type": "object",
    "required": ["pairs", "page", "per_page", "total", "next_after"],
    "properties": {
        "pairs": {"type": "array", "items": OBJECT},
        "page": {"type": "integer"},
        "per_page": {"type": "integer"},
        "total": {"type": "integer"},
        "next_after": {"type": ["integer", "null"]},
    },
}
PAIR_QUERY = {
    "purpose": {"enum": ["band", "calibration", "model", "blocking", "pairfile"]},
    "round": {"type": "integer", "minimum": 1, "maximum": 2**31 - 1},
    "status": {"enum": ["decided", "undecided", "conflict", "unassigned", "model"]},
    "pair": ID,
    "page": {"type": "integer", "minimum": 1, "maximum": 2**31 - 1},
    "per_page": {"type": "integer", "minimum": 1, "maximum": 1000},
    "after": {"type": "integer", "minimum": 0, "maximum": 2**31 - 1},
}
PREDICTIONS_QUERY = {
    **TRIAGE["properties"],
    "preview": {"type": "boolean"},
    "source_a": {"type": "string", "maxLength": 100},
    "source_b": {"type": "string", "maxLength": 100},
}
