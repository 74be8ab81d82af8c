"""JSON Schemas of a manager's routes (``app/api/manage.py``, ``app/api/conflicts.py``):
blocking, budgets, progress, and the resolution of conflicts."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from app.api.openapi.schemas import BUDGET_VALUE, CONFIDENCE, OBJECT, RISK, attribute_name, username


def resolution_reveal(config: Mapping[str, Any]) -> dict[str, Any]:
    return {
        "type": "object",
        "required": ["row", "attribute"],
        "properties": {
            "row": {"type": "integer", "minimum": 0, "maximum": 1},
            "attribute": attribute_name(config),
        },
    }


RESOLVE_BODY = {
    "type": "object",
    "required": ["decision"],
    "properties": {"decision": {"enum": ["same", "different"]}, "confidence": CONFIDENCE},
}
POLICY_BODY = {
    "type": "object",
    "required": ["policy"],
    "properties": {
        "policy": {"enum": ["manager", "reviewer"]},
        "resolver_budget": BUDGET_VALUE,
    },
}
BUDGET_BODY = {"type": "object", "required": ["budget"], "properties": {"budget": BUDGET_VALUE}}
BUDGET_CHANGED = {
    "type": "object",
    "required": ["budget", "previous"],
    "properties": {"budget": RISK, "previous": RISK},
}


def refer(config: Mapping[str, Any]) -> dict[str, Any]:
    return {
        "type": "object",
        "required": ["worker"],
        "properties": {"worker": username(config), "budget": BUDGET_VALUE},
    }


def blocking(config: Mapping[str, Any]) -> dict[str, Any]:
    return {
        "type": "object",
        "required": ["rules"],
        "properties": {
            "rules": {
                "type": "array",
                "maxItems": 50,
                "items": {"type": ["object", "array", "string"]},
            },
            "create": {"type": "boolean"},
        },
    }


CONFLICTS = {
    "type": "object",
    "required": ["policy", "resolver_budget", "conflicts"],
    "properties": {
        "policy": {"type": "string"},
        "resolver_budget": RISK,
        "conflicts": {"type": "array", "items": OBJECT},
    },
}
BLOCKING = {"type": "object"}
PROGRESS = {
    "type": "object",
    "required": ["pairs", "decided", "conflicts", "agreement", "workers"],
    "properties": {
        "pairs": {"type": "integer"},
        "decided": {"type": "integer"},
        "conflicts": {"type": "integer"},
        "agreement": OBJECT,
        "workers": {"type": "array", "items": OBJECT},
    },
}
