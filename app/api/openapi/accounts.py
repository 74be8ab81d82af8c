"""JSON Schemas of account administration (``app/api/accounts.py``)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from app.api.openapi.schemas import ID, username

ROLE = {"enum": ["admin", "manager", "worker"]}
DATETIME = {"type": ["string", "null"], "format": "date-time"}
TOKEN = {
    "type": "object",
    "required": ["id", "label", "created_at", "last_used_at"],
    "properties": {
        "id": ID, "label": {"type": ["string", "null"]}, "created_at": DATETIME,
        "last_used_at": {**DATETIME, "description": "to the minute; null: never used"},
    },
}  # fmt: skip


def _listing(name: str, item: dict) -> dict:
    return {
        "type": "object",
        "required": [name],
        "properties": {name: {"type": "array", "items": item}},
    }


TOKENS = _listing("tokens", TOKEN)
USER = {
    "type": "object",
    "required": ["id", "username", "role", "active", "tokens", "created_at"],
    "properties": {
        "id": ID, "username": {"type": "string"}, "role": ROLE, "active": {"type": "boolean"},
        "must_change_password": {"type": "boolean"},
        "tokens": {"type": "integer", "description": "how many API tokens it holds"},
        "created_at": DATETIME,
    },
}  # fmt: skip
USERS = _listing("users", USER)
EVENT = {
    "type": "object",
    "required": ["at", "action", "by", "via", "detail"],
    "properties": {
        "at": DATETIME, "action": {"type": "string"}, "by": {"type": ["string", "null"]},
        "via": {"enum": ["web", "api", "cli"]}, "detail": {"type": ["string", "null"]},
    },
}  # fmt: skip
USER_DETAIL = {
    "type": "object",
    "required": ["user", "tokens", "events"],
    "properties": {
        "user": USER,
        "tokens": {"type": "array", "items": TOKEN},
        "events": {"type": "array", "items": EVENT},
    },
}
PASSWORD_ISSUED = {
    "type": "object",
    "required": ["user", "password"],
    "properties": {
        "user": USER,
        "password": {"type": "string", "description": "shown once; stored hashed only"},
    },
}
ROLE_BODY = {"type": "object", "required": ["role"], "properties": {"role": ROLE}}


def new_user(config: Mapping[str, Any]) -> dict[str, Any]:
    return {
        "type": "object",
        "required": ["username", "role"],
        "properties": {"username": username(config), "role": ROLE},
    }
