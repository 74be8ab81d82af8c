"""JSON Schemas of a worker's review routes (``app/api/review.py``, ``app/api/decisions.py``):
a reveal, a page, decisions saved, cleared and submitted."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from app.api.openapi.schemas import CONFIDENCE, DECISION, ID, OBJECT, PAIR_NAME, attribute_name


def reveal(config: Mapping[str, Any]) -> dict[str, Any]:
    return {
        "type": "object",
        "required": ["pair_id", "row", "attribute"],
        "properties": {
            "pair_id": PAIR_NAME,
            "row": {"type": "integer", "minimum": 0, "maximum": 1},
            "attribute": attribute_name(config),
            # The level the client shows: another one stored means a stale view (409).
            "shown_level": {"enum": ["masked", "partial", "full"]},
        },
    }


# The answer version the client read (the pair's ``answer_version``; null: none): when given
# and the pair has another now, 409 ``answer_changed`` and nothing is saved.
VERSION = {"anyOf": [ID, {"type": "null"}]}
DECISION_BODY = {
    "type": "object",
    "required": ["pair_id", "decision"],
    "properties": {
        "pair_id": PAIR_NAME,
        "decision": DECISION,
        "confidence": CONFIDENCE,
        "version": VERSION,
    },
}
CLEAR_BODY = {
    "type": "object",
    "required": ["pair_id"],
    "properties": {"pair_id": PAIR_NAME, "version": VERSION},
}
SUBMIT_BODY = {
    "type": "object",
    "properties": {"pair_ids": {"type": "array", "maxItems": 10_000, "items": PAIR_NAME}},
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
    "properties": {
        "id": ID,
        "pair_id": PAIR_NAME,
        "decision": DECISION,
        **SUMMARY,
        # the reviewing session as the answer left it (the project's break reminder)
        "break": {
            "type": "object",
            "required": ["due", "minutes", "decisions"],
            "properties": {
                "due": {"type": "boolean"},
                "minutes": {"type": "number"},
                "decisions": {"type": "integer"},
            },
        },
    },
}
DECISION_CLEARED = {
    "type": "object",
    "required": ["id", "pair_id", "cleared", "decided", "total"],
    "properties": {"id": ID, "pair_id": PAIR_NAME, "cleared": {"const": True}, **SUMMARY},
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

ADVICE_QUERY = {"pair": {"type": "integer", "minimum": 1, "maximum": 2**63 - 1}}
ADVICE = {
    "type": "object",
    "required": ["pair_id", "reviewer", "suggestion", "suffices"],
    "properties": {
        "pair_id": ID,
        "reviewer": {"enum": ["human", "evidence"]},
        "suggestion": {
            "anyOf": [
                {"type": "null"},
                {
                    "type": "object",
                    "required": ["row", "attribute"],
                    "properties": {"row": {"enum": [0, 1]}, "attribute": {"type": "string"}},
                },
            ]
        },
        "suffices": {"type": "boolean"},
        # Only when the project shows workers the linker's scores.
        "p_correct": {"type": "number"},
        "cells": {"type": "array", "items": OBJECT},
    },
}
