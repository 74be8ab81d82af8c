"""JSON Schemas of the project routes (``app/api/projects.py``): a whole project description
with its pairs and triage settings, the created project, a new assignment."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from app.api.openapi.schemas import BUDGET_VALUE, ID, INT64, NUMBER, text, username

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


def project_spec(config: Mapping[str, Any]) -> dict[str, Any]:
    """A whole project description (docs/api.md); records are flat objects of values.

    Not expressible here, checked by the view: a record's values together are at most
    ``MAX_RECORD_CHARS`` characters; every record has an ``id`` unless ``record_ids`` is
    ``generated``.
    """
    value = {
        "anyOf": [
            {"type": "string", "maxLength": config["MAX_VALUE_CHARS"], "x-bound": "value"},
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
                    {
                        "type": "string",
                        "minLength": 1,
                        "maxLength": config["MAX_RECORD_ID_CHARS"],
                        "x-bound": "id",
                    },  # fmt: skip
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
            "name": text(config["MAX_NAME_CHARS"]),
            "kind": {"enum": ["dedupe", "link"]},
            "attributes": {
                "type": "array",
                "minItems": 1,
                "maxItems": config["MAX_ATTRIBUTES"],
                "items": {
                    "type": "object",
                    "required": ["name"],
                    "properties": {
                        "name": text(config["MAX_ATTRIBUTE_NAME_CHARS"]),
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
    record_ref = {
        "anyOf": [
            {"type": "string", "maxLength": config["MAX_RECORD_ID_CHARS"], "x-bound": "id"},
            INT64,
        ]
    }
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
                "items": text(config["MAX_ATTRIBUTE_NAME_CHARS"]),
            },
            "round": {"type": "integer", "minimum": 1, "maximum": 2**31 - 1},
            # known-truth checks mixed in (docs/quality.md)
            "checks": {
                "type": "object",
                "required": ["share"],
                "additionalProperties": False,
                "properties": {
                    "share": {"type": "number", "exclusiveMinimum": 0, "maximum": 0.5},
                    "source": {"enum": ["synthetic", "truth"]},
                },
            },
        },
    }
