"""JSON Schemas of reviewer quality's routes (in ``app/api/manage.py``; docs/quality.md)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from app.api.openapi.schemas import ID, NUMBER, username

SHARE = {"type": ["number", "null"], "minimum": 0, "maximum": 1}
REVIEWER = {
    "type": "object",
    "required": [
        "worker", "decisions", "checks_answered", "checks_wrong", "discordance", "kappa",
        "flagged", "flagged_after",
    ],
    "properties": {
        "worker": {"type": "string"},
        "decisions": {"type": "integer", "minimum": 0},
        "checks_answered": {"type": "integer", "minimum": 0},
        "checks_wrong": {"type": "integer", "minimum": 0},
        "discordance": SHARE,
        "kappa": {"type": "object", "additionalProperties": {"type": ["number", "null"]}},
        "flagged": {"type": "boolean"},
        "flagged_after": {"type": ["integer", "null"], "minimum": 0},
        "accuracy": {"type": "object"},
        "discordance_adjudicated": SHARE,
        "seconds_per_decision": {"type": ["number", "null"]},
        "decisions_per_hour": {"type": ["number", "null"]},
    },
}  # fmt: skip
REVIEWERS = {
    "type": "object",
    "required": ["reviewers", "agreement", "checks"],
    "properties": {
        "reviewers": {"type": "array", "items": REVIEWER},
        "agreement": {"type": "object", "required": ["measure", "value"]},
        "discordance": SHARE,
        "checks": {"type": "object"},
    },
}
ALERT = {
    "type": "object",
    "required": ["id", "assignment_id", "worker", "after_decisions", "state"],
    "properties": {
        "id": ID,
        "assignment_id": ID,
        "worker": {"type": "string"},
        "after_decisions": {"type": "integer"},
        "checks": {"type": "integer"},
        "wrong": {"type": "integer"},
        "threshold": NUMBER,
        "state": {"enum": ["open", "paused", "resumed", "reassigned", "dismissed"]},
    },
}
ALERTS = {
    "type": "object",
    "required": ["alerts"],
    "properties": {"alerts": {"type": "array", "items": ALERT}},
}
ADJUDICATIONS = {
    "type": "object",
    "required": ["adjudications"],
    "properties": {"adjudications": {"type": "array", "items": {"type": "object"}}},
}


def alert_action(config: Mapping[str, Any]) -> dict[str, Any]:
    return {
        "type": "object",
        "required": ["action"],
        "additionalProperties": False,
        "properties": {
            "action": {"enum": ["pause", "resume", "dismiss", "reassign"]},
            "to": username(config),
        },
    }


ACTED = {
    "type": "object",
    "required": ["alert", "action", "state"],
    "properties": {"alert": ALERT, "action": {"type": "string"}, "state": {"type": "string"}},
}
