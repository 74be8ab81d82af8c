"""Hostile input stops at the door: bounded JSON, 64-bit integers, no NUL, bounded path ids.

Every JSON body the app parses goes through :class:`BoundedJSONProvider`: numbers must be
finite (``NaN``/``Infinity`` are not JSON and ``1e999`` overflows), integers must fit in 64
bits (the database's ``BIGINT``), nesting is at most ``MAX_JSON_DEPTH`` deep, strings carry no
NUL (PostgreSQL text cannot hold one) and none is longer than ``MAX_VALUE_CHARS`` or
``MAX_RECORD_CHARS``, whichever is larger. A body that breaks a rule is a 400 that names the
place (``body.records[3].name``), never the value. Form fields and query strings are refused
with a NUL in them, and ``<int:...>`` path segments beyond an id column's range (31 bits) are a 404.
Per-field limits (a name's length, a record's size) are in the route's schema
(:mod:`app.api.openapi.schemas` and its siblings), checked by :func:`app.api.openapi.documented`.
"""

from __future__ import annotations

import json
import math
from typing import Any

from flask import Flask, abort, current_app, request
from flask.json.provider import DefaultJSONProvider
from werkzeug.routing import IntegerConverter

from app.core.disclosure import neutralise_bidi_json
from app.limits import Limits

INT64_MIN, INT64_MAX = -(2**63), 2**63 - 1
# Ids are INTEGER columns (32-bit on PostgreSQL): a larger one can name no row.
ID_MAX = 2**31 - 1
FORM_TYPES = frozenset({"multipart/form-data", "application/x-www-form-urlencoded"})


class JSONLimitError(ValueError):
    """A JSON body broke one of the input limits; the message names the place, not the value."""


class BoundedJSONProvider(DefaultJSONProvider):
    def dumps(self, obj: Any, **kwargs: Any) -> str:
        # every JSON answer (the worker's grid included) shows no bidi control character
        return neutralise_bidi_json(super().dumps(obj, **kwargs))

    def loads(self, s: str | bytes, **kwargs: Any) -> Any:
        config = self._app.config
        try:
            value = json.loads(
                s, parse_constant=_no_constant, parse_int=_int64, parse_float=_finite, **kwargs
            )
        except RecursionError:
            raise JSONLimitError(
                f"the JSON is nested deeper than {config['MAX_JSON_DEPTH']} levels"
            ) from None
        longest = max(config["MAX_VALUE_CHARS"], config["MAX_RECORD_CHARS"])
        check_tree(value, config["MAX_JSON_DEPTH"], longest)
        return value


def _no_constant(name: str) -> Any:
    raise JSONLimitError(f"{name} is not a JSON number; send a finite number")


def _int64(text: str) -> int:
    if len(text) > 20:
        raise JSONLimitError("an integer does not fit in 64 bits")
    value = int(text)
    if not INT64_MIN <= value <= INT64_MAX:
        raise JSONLimitError("an integer does not fit in 64 bits")
    return value


def _finite(text: str) -> float:
    value = float(text)
    if not math.isfinite(value):
        raise JSONLimitError("a number is too large to be finite")
    return value


def check_tree(value: Any, max_depth: int, max_chars: int) -> None:
    """Check depth, NUL and string lengths of a parsed JSON value without recursion."""
    stack: list[tuple[Any, str, int]] = [(value, "body", 1)]
    while stack:
        item, where, depth = stack.pop()
        if isinstance(item, str):
            _check_string(item, where, max_chars)
            continue
        if not isinstance(item, dict | list):
            continue
        if depth > max_depth:
            raise JSONLimitError(f"{where}: the JSON is nested deeper than {max_depth} levels")
        if isinstance(item, dict):
            for key, child in item.items():
                _check_string(key, f"{where} (a key)", max_chars)
                stack.append((child, f"{where}.{key}" if len(key) <= 100 else where, depth + 1))
        else:
            stack.extend((child, f"{where}[{n}]", depth + 1) for n, child in enumerate(item))


def _check_string(text: str, where: str, max_chars: int) -> None:
    if "\x00" in text:
        raise JSONLimitError(f"{where}: contains a NUL character")
    if len(text) > max_chars:
        raise JSONLimitError(f"{where}: longer than {max_chars:,} characters")


def check_record_sizes(body: dict, max_chars: int) -> None:
    """400 when the values of one record together exceed ``max_chars`` (MAX_RECORD_CHARS)."""
    for source in ("records", "records_a", "records_b"):
        rows = body.get(source)
        for n, row in enumerate(rows if isinstance(rows, list) else ()):
            if not isinstance(row, dict):
                continue
            values = (value for key, value in row.items() if key != "id")  # the id: its own bound
            problem = Limits(record_chars=max_chars).record_problem(values)
            if problem is not None:
                abort(400, f"body.{source}[{n}]: {problem}")


class IdConverter(IntegerConverter):
    """``<int:...>`` that matches only numbers an id column can hold (else 404)."""

    def __init__(self, map, fixed_digits=0, min=None, max=ID_MAX, signed=False) -> None:  # noqa: A002
        super().__init__(map, fixed_digits=fixed_digits, min=min, max=max, signed=signed)


def reject_nul_in_forms() -> None:
    """400 for a NUL in a query string or form field (never reaches a query or a column)."""
    checked = [("query parameter", request.args)]
    if request.mimetype in FORM_TYPES:  # the only bodies werkzeug parses into request.form
        checked.append(("form field", request.form))
    for where, fields in checked:
        for name, value in fields.items(multi=True):
            if "\x00" in value or "\x00" in name:
                abort(400, f"the {where} {name.replace(chr(0), '')!r} contains a NUL character")


def parse_json_strictly() -> None:
    """Parse a JSON API body up front so a broken one gets a 400 that says what is wrong."""
    if request.method in ("POST", "PUT", "PATCH") and request.is_json:
        try:
            value = current_app.json.loads(request.get_data(cache=True))
        except JSONLimitError as exc:
            abort(400, str(exc))
        except ValueError as exc:  # JSONDecodeError and bad UTF-8 name a position, not data
            reason = exc.msg if isinstance(exc, json.JSONDecodeError) else "not UTF-8"
            abort(400, f"the body is not valid JSON ({reason})")
        # request.get_json() answers from here instead of parsing and checking the body again
        # (werkzeug's cache of (get_json(), get_json(silent=True)); unset, it parses again).
        request._cached_json = (value, value)


def register_input_limits(app: Flask) -> None:
    """Install the bounded JSON parser, the 64-bit path converter and the NUL guard.

    Call before the blueprints are registered (the converter applies to rules as they are
    added).
    """
    app.json = BoundedJSONProvider(app)
    app.url_map.converters["int"] = IdConverter
    app.before_request(reject_nul_in_forms)
    app.before_request(parse_json_strictly)
