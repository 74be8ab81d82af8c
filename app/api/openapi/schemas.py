"""JSON Schemas of the API's bodies and answers (documented limits come from the config).

Functions take the app config so the document and the check state the limits in force.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

INT64 = {"type": "integer", "minimum": -(2**63), "maximum": 2**63 - 1}
# ids are INTEGER columns (32-bit on PostgreSQL)
ID = {"type": "integer", "minimum": 1, "maximum": 2**31 - 1}
NUMBER = {"type": "number"}
# Budgets and risks are fractions of the maximum KAPR (1) in the API; the pages show and take
# them in percent (app/units.py): 0.005 here is the 0.5 % a manager types.
UNIT = "a fraction of the maximum KAPR (1): 0.005 is the 0.5% the pages show"
BUDGET_VALUE = {"type": "number", "minimum": 0, "maximum": 1, "description": UNIT}
RISK = {"type": "number", "description": UNIT}
OK = {"type": "object", "required": ["ok"], "properties": {"ok": {"const": True}}}
CREATED = {"type": "object", "required": ["id"], "properties": {"id": ID}}
#: A created project, and the identifying dates kept as missing (``invalid_dates``).
PROJECT_CREATED = {
    "type": "object",
    "required": ["id", "invalid_dates_kept_missing"],
    "properties": {
        "id": ID,
        "invalid_dates_kept_missing": {
            "type": "object",
            "required": ["total", "first"],
            "properties": {
                "total": {"type": "integer", "minimum": 0},
                "first": {"type": "array", "items": {"type": "string"}},
            },
        },
    },
}
PAGE_QUERY = {"page": {"type": "integer", "minimum": 1, "maximum": 2**31 - 1}}
DECISION = {"enum": ["same", "different", "unsure"]}
CONFIDENCE = {"enum": ["high", "medium", "low", None]}
OBJECT = {"type": "object"}


def _text(limit: int, min_length: int = 1) -> dict[str, Any]:
    return {"type": "string", "minLength": min_length, "maxLength": limit}


def username(config: Mapping[str, Any]) -> dict[str, Any]:
    return _text(config["MAX_USERNAME_CHARS"])


def project_spec(config: Mapping[str, Any]) -> dict[str, Any]:
    """A whole project description (docs/api.md); records are flat objects of values.

    Not expressible here, checked by the view: a record's values together are at most
    ``MAX_RECORD_CHARS`` characters; every record has an ``id`` unless ``record_ids`` is
    ``generated``.
    """
    value = {
        "anyOf": [
            {"type": "string", "maxLength": config["MAX_VALUE_CHARS"]},
            {"type": "number"},
            {"type": "boolean"},
            {"type": "null"},
        ]
    }
    record = {
        "type": "object",
        "properties": {
            "id": {
                "anyOf": [
                    {"type": "string", "minLength": 1, "maxLength": config["MAX_RECORD_ID_CHARS"]},
                    INT64,
                ]
            }
        },
        "additionalProperties": value,
        "maxProperties": config["MAX_ATTRIBUTES"] + 1,
    }
    records = {
        "type": "array",
        "minItems": 1,
        "maxItems": config["MAX_JSON_RECORDS"],
        "items": record,
    }
    counts = {  # name -> how many people carry it (a 32-bit column)
        "type": "object",
        "maxProperties": config["MAX_JSON_RECORDS"],
        "additionalProperties": {"type": "integer", "minimum": 0, "maximum": 2**31 - 1},
    }
    return {
        "type": "object",
        "required": ["name", "kind", "attributes"],
        "properties": {
            "name": _text(config["MAX_NAME_CHARS"]),
            "kind": {"enum": ["dedupe", "link"]},
            "attributes": {
                "type": "array",
                "minItems": 1,
                "maxItems": config["MAX_ATTRIBUTES"],
                "items": {
                    "type": "object",
                    "required": ["name"],
                    "properties": {
                        "name": _text(config["MAX_ATTRIBUTE_NAME_CHARS"]),
                        "type": {"enum": ["id", "string", "date", "category"]},
                        "sensitive": {"type": "boolean"},
                        "truth": {"type": "boolean"},
                        # a date's layout: %Y, %m, %d and separators (app/core/disclosure/dates.py)
                        "format": {"type": "string", "minLength": 1, "maxLength": 40},
                    },
                },
            },
            "records": records,
            "records_a": records,
            "records_b": records,
            "pairs": pairs(config),
            "triage": TRIAGE,
            "kappa": {"type": "integer", "minimum": 1, "maximum": 2**31 - 1},
            "evidence_model": {"enum": ["row", "pair"]},
            "default_budget": BUDGET_VALUE,
            "page_size": {"type": "integer", "minimum": 1, "maximum": 200},
            "allow_unsure": {"type": "boolean"},
            "record_ids": {"enum": ["given", "generated"]},
            "invalid_dates": {"enum": ["error", "missing"]},
            "name_frequencies": {
                "type": "object",
                "properties": {"first": counts, "last": counts},
                "additionalProperties": False,
            },
            "show_scores": {"type": "boolean"},
        },
    }


#: Triage settings (docs/triage.md): thresholds on the score, calibration draw, review order.
TRIAGE = {
    "type": "object",
    "required": ["lower", "upper"],
    "properties": {
        "lower": NUMBER,
        "upper": NUMBER,
        "calibration": {"type": "integer", "minimum": 0, "maximum": 100_000},
        "seed": {"type": "integer", "minimum": 0, "maximum": 2**63 - 1},
        "score": {"enum": ["probability", "weight"]},
        "order": {"enum": ["uncertainty", "file"]},
        "bins": {"type": "integer", "minimum": 1, "maximum": 100},
    },
}


def pairs(config: Mapping[str, Any]) -> dict[str, Any]:
    """Pairs as ``[a, b]`` or ``{"a", "b", "match_probability", "match_weight", "match_key"}``.

    One schema for both shapes (array keywords bind arrays, object keywords objects), so a
    bad item's error names its own field instead of an ``anyOf`` of the two shapes.
    """
    record_ref = {"anyOf": [{"type": "string", "maxLength": config["MAX_RECORD_ID_CHARS"]}, INT64]}
    item = {
        "type": ["array", "object"],
        "minItems": 2,
        "maxItems": 2,
        "items": record_ref,
        "required": ["a", "b"],
        "properties": {
            "a": record_ref,
            "b": record_ref,
            "match_probability": {"type": "number", "minimum": 0, "maximum": 1},
            "match_weight": NUMBER,
            "match_key": {"anyOf": [{"type": "string", "maxLength": 200}, INT64]},
        },
    }
    return {"type": "array", "maxItems": config["MAX_JSON_PAIRS"], "items": item}


def assignment_spec(config: Mapping[str, Any]) -> dict[str, Any]:
    return {
        "type": "object",
        "required": ["worker"],
        "properties": {
            "worker": username(config),
            "budget": BUDGET_VALUE,
            "pairs": {
                "anyOf": [
                    {"const": "all"},
                    {"type": "array", "maxItems": config["MAX_JSON_PAIRS"], "items": ID},
                ]
            },
            "start_partial": {
                "type": "array",
                "maxItems": config["MAX_ATTRIBUTES"],
                "items": _text(config["MAX_ATTRIBUTE_NAME_CHARS"]),
            },
            "round": {"type": "integer", "minimum": 1, "maximum": 2**31 - 1},
        },
    }


def attribute_name(config: Mapping[str, Any]) -> dict[str, Any]:
    return _text(config["MAX_ATTRIBUTE_NAME_CHARS"])


def reveal(config: Mapping[str, Any]) -> dict[str, Any]:
    return {
        "type": "object",
        "required": ["pair_id", "row", "attribute"],
        "properties": {
            "pair_id": ID,
            "row": {"type": "integer", "minimum": 0, "maximum": 1},
            "attribute": attribute_name(config),
            # The level the client shows: another one stored means a stale view (409).
            "shown_level": {"enum": ["masked", "partial", "full"]},
        },
    }


def resolution_reveal(config: Mapping[str, Any]) -> dict[str, Any]:
    return {
        "type": "object",
        "required": ["row", "attribute"],
        "properties": {
            "row": {"type": "integer", "minimum": 0, "maximum": 1},
            "attribute": attribute_name(config),
        },
    }


# The answer version the client read (the pair's ``answer_version``; null: none): when given
# and the pair has another now, 409 ``answer_changed`` and nothing is saved.
VERSION = {"anyOf": [ID, {"type": "null"}]}
DECISION_BODY = {
    "type": "object",
    "required": ["pair_id", "decision"],
    "properties": {
        "pair_id": ID,
        "decision": DECISION,
        "confidence": CONFIDENCE,
        "version": VERSION,
    },
}
CLEAR_BODY = {
    "type": "object",
    "required": ["pair_id"],
    "properties": {"pair_id": ID, "version": VERSION},
}
SUBMIT_BODY = {
    "type": "object",
    "properties": {"pair_ids": {"type": "array", "maxItems": 10_000, "items": ID}},
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
PAGE = {
    "type": "object",
    "required": ["assignment", "attributes", "pairs"],
    "properties": {
        "assignment": OBJECT,
        "attributes": {"type": "array", "items": OBJECT},
        "pairs": {"type": "array", "items": OBJECT},
    },
}
SUMMARY = {"decided": {"type": "integer"}, "total": {"type": "integer"}, "tally": OBJECT}
DECISIONS = {
    "type": "object",
    "required": ["decisions", "resume_page", "pages", "decided", "total"],
    "properties": {
        "decisions": OBJECT,
        "resume_page": {"type": "integer"},
        "pages": {"type": "integer"},
        **SUMMARY,
    },
}
DECISION_SAVED = {
    "type": "object",
    "required": ["id", "pair_id", "decision", "decided", "total"],
    "properties": {"id": ID, "pair_id": ID, "decision": DECISION, **SUMMARY},
}
DECISION_CLEARED = {
    "type": "object",
    "required": ["id", "pair_id", "cleared", "decided", "total"],
    "properties": {"id": ID, "pair_id": ID, "cleared": {"const": True}, **SUMMARY},
}
PAGE_SUBMITTED = {
    "type": "object",
    "required": ["page", "next_page", "complete", "decided", "total"],
    "properties": {
        "page": {"type": "integer"},
        "next_page": {"type": ["integer", "null"]},
        "complete": {"type": "boolean"},
        "decided": {"type": "integer"},
        "total": {"type": "integer"},
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
JOB = {
    "type": "object",
    "required": ["id", "kind", "status"],
    "properties": {"id": ID, "kind": {"type": "string"}, "status": {"type": "string"}},
}
