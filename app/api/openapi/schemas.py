"""JSON Schemas every part of the API uses: ids, numbers, budgets, texts, plain answers.

Functions take the app config so the document and the check state the limits in force. The
bodies and answers of one family of routes have their own module beside this one
(:mod:`.projects`, :mod:`.review`, :mod:`.manage`, :mod:`.pairs`, :mod:`.release`).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

INT64 = {"type": "integer", "minimum": -(2**63), "maximum": 2**63 - 1}
# ids are INTEGER columns (32-bit on PostgreSQL)
ID = {"type": "integer", "minimum": 1, "maximum": 2**31 - 1}
#: What a worker calls a pair: its id, or in an assignment with checks its random handle
#: (below 2**53, so a browser's numbers hold it; app/review/handles.py).
PAIR_NAME = {"type": "integer", "minimum": 1, "maximum": 2**53 - 1}
NUMBER = {"type": "number"}
# Budgets and risks are fractions of the maximum KAPR (1) in the API; the pages show and take
# them in percent (app/units.py): 0.005 here is the 0.5 % a manager types.
UNIT = "a fraction of the maximum KAPR (1): 0.005 is the 0.5% the pages show"
BUDGET_VALUE = {"type": "number", "minimum": 0, "maximum": 1, "description": UNIT}
RISK = {"type": "number", "description": UNIT}
OK = {"type": "object", "required": ["ok"], "properties": {"ok": {"const": True}}}
CREATED = {"type": "object", "required": ["id"], "properties": {"id": ID}}
PAGE_QUERY = {"page": {"type": "integer", "minimum": 1, "maximum": 2**31 - 1}}
DECISION = {"enum": ["same", "different", "unsure"]}
CONFIDENCE = {"enum": ["high", "medium", "low", None]}
OBJECT = {"type": "object"}


def text(limit: int, min_length: int = 1) -> dict[str, Any]:
    return {"type": "string", "minLength": min_length, "maxLength": limit}


def username(config: Mapping[str, Any]) -> dict[str, Any]:
    return text(config["MAX_USERNAME_CHARS"])


def attribute_name(config: Mapping[str, Any]) -> dict[str, Any]:
    return text(config["MAX_ATTRIBUTE_NAME_CHARS"])


METERS = {
    "type": "object",
    "required": ["budget", "kapr", "kapr_exact"],
    "properties": {"budget": RISK, "kapr": RISK, "kapr_exact": {"type": "string"}},
}
REVEALED = {
    "type": "object",
    "required": ["pair", "cell", "cost", "cost_exact", "assignment"],
    "properties": {
        "pair": OBJECT,
        "cell": OBJECT,
        "cost": NUMBER,
        "cost_exact": {"type": "string"},
        "assignment": METERS,
    },
}
ME = {
    "type": "object",
    "required": ["username", "role"],
    "properties": {
        "username": {"type": "string"},
        "role": {"enum": ["admin", "manager", "worker"]},
    },
}
JOB = {
    "type": "object",
    "required": ["id", "kind", "status"],
    "properties": {"id": ID, "kind": {"type": "string"}, "status": {"type": "string"}},
}
