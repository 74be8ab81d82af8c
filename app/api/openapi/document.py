"""The OpenAPI 3.1 document of ``/api/v1``, built from the routes themselves.

A view joins the document with :func:`documented`, under its route and role decorators::

    @bp.post("/projects/<int:project_id>/budget")
    @roles_required("manager")
    @documented("Change a budget", body=BUDGET_BODY, ok=BUDGET_CHANGED)
    def budget_view(project_id): ...

The path, method and path parameters come from ``app.url_map``; the decorator adds the
summary, the request body schema (checked before the view runs: a body that breaks it is a
400 naming the field, never its value), the success response and the error statuses. A
schema may be a dict or a function of the app config (for limits such as
``MAX_VALUE_CHARS``), so the document always states the limits the server enforces.
``tests/api/test_openapi.py`` fails for any ``/api/v1`` route without the decorator.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from functools import wraps
from typing import Any

import fastjsonschema
import jsonschema
from flask import Flask, abort, current_app, jsonify, request

from app.limits import BOUND_NAMES, refusal

Schema = Mapping[str, Any] | Callable[[Mapping[str, Any]], Mapping[str, Any]]

ERROR = {
    "type": "object",
    "required": ["error", "message"],
    "properties": {"error": {"type": "string"}, "message": {"type": "string"}},
}
ERROR_NAMES = {
    400: "Bad request: the body or a parameter breaks the schema, or a browser session's"
    " request that changes something lacks its CSRF token",
    401: "Not logged in (no session, or an invalid bearer token)",
    403: "The caller's role may not do this, or it is someone else's resource",
    404: "No such resource (or one the caller may not see)",
    409: "Refused in the current state (a reveal past the budget, nothing left to reveal, a view"
    " or an answer changed elsewhere); the body carries the current state",
    410: "The project was closed out: the values this needs were destroyed (docs/closeout.md)",
    413: "The body is larger than MAX_CONTENT_LENGTH",
    429: "Too many requests (a failing token from an address past its failure limit, this"
    " account's rate over its sessions and tokens, or its reveals in progress)",
}
COMMON_ERRORS = (401, 403, 404, 413, 429)
UNSAFE = ("post", "put", "patch", "delete")  # a session's request needs its CSRF token


@dataclass(frozen=True)
class Operation:
    summary: str
    body: Schema | None = None
    ok: Schema | None = None
    status: int = 200
    errors: tuple[int, ...] = ()
    query: Mapping[str, Schema] = field(default_factory=dict)
    media_type: str = "application/json"
    body_required: bool = True
    upload: tuple[str, ...] = ()  # media types of a file sent as the raw body


def documented(
    summary: str,
    *,
    body: Schema | None = None,
    ok: Schema | None = None,
    status: int = 200,
    errors: tuple[int, ...] = (),
    query: Mapping[str, Schema] | None = None,
    media_type: str = "application/json",
    body_required: bool = True,
    upload: tuple[str, ...] = (),
):
    """Describe a view in the OpenAPI document and check its JSON body against ``body``.

    ``upload`` documents a file sent as the raw request body (the view reads and checks it).
    """
    operation = Operation(
        summary, body, ok, status, errors, query or {}, media_type, body_required, upload
    )

    def decorator(view):
        @wraps(view)
        def wrapped(*args, **kwargs):
            for name, schema in operation.query.items():
                check_query(name, resolve(schema, current_app.config))
            if operation.body is not None:
                check_body(_validator(operation), operation.body_required)
            return view(*args, **kwargs)

        wrapped.openapi = operation
        return wrapped

    return decorator


def resolve(schema: Schema, config: Mapping[str, Any]) -> Mapping[str, Any]:
    return schema(config) if callable(schema) else schema


@dataclass(frozen=True)
class BodyValidator:
    """A body schema checked two ways: ``fast``, compiled to Python by fastjsonschema (a few
    microseconds, against ~0.1 ms for jsonschema on a reveal's body), says whether a body is
    valid; ``full`` (jsonschema, the reference) decides a body ``fast`` refuses and says what
    is wrong with it. The schemas use only keywords both read alike (type, properties,
    required, items, enum, const, anyOf, bounds and lengths); ``tests/api/test_body_schemas.py``
    checks that the two agree on every documented body schema."""

    fast: Callable[[Any], Any]
    full: jsonschema.Draft202012Validator

    @classmethod
    def of(cls, schema: Mapping[str, Any]) -> BodyValidator:
        return cls(fastjsonschema.compile(dict(schema)), jsonschema.Draft202012Validator(schema))

    def is_valid(self, body: Any) -> bool:
        try:
            self.fast(body)
        except fastjsonschema.JsonSchemaException:
            return self.full.is_valid(body)
        return True


def _validator(operation: Operation) -> BodyValidator:
    """The body's validator, built once per app and operation (the schema may depend on the
    app's config, which does not change while it serves)."""
    cache = current_app.extensions.setdefault("mindfirl_validators", {})
    validator = cache.get(id(operation))
    if validator is None:
        schema = resolve(operation.body, current_app.config)
        validator = cache[id(operation)] = BodyValidator.of(schema)
    return validator


def check_body(schema: Mapping[str, Any] | BodyValidator, required: bool = True) -> None:
    """400 unless the request's JSON body is valid against ``schema`` (or its validator)."""
    body = request.get_json(silent=True)
    if body is None and not required and not request.get_data(cache=True):
        return
    if body is None:
        abort(400, "send a JSON body (Content-Type: application/json)")
    validator = schema if isinstance(schema, BodyValidator) else BodyValidator.of(schema)
    if validator.is_valid(body):
        return
    error = jsonschema.exceptions.best_match(validator.full.iter_errors(body))
    if error is not None:
        abort(400, describe(error))


def check_query(name: str, schema: Mapping[str, Any]) -> None:
    """Check an integer query parameter against its bounds (the only kind the API has)."""
    raw = request.args.get(name)
    if raw is None or schema.get("type") != "integer":
        return
    try:
        value = int(raw) if len(raw) <= 20 else None
    except ValueError:
        value = None
    low, high = schema.get("minimum", -(2**63)), schema.get("maximum", 2**63 - 1)
    if value is None or not low <= value <= high:
        abort(400, f"query parameter {name!r} must be a whole number from {low} to {high}")


def describe(error: jsonschema.ValidationError) -> str:
    """Say where and which rule, never the offending value (it may be a record's value)."""
    where = "body" + "".join(
        f"[{part}]" if isinstance(part, int) else f".{part}"[:101] for part in error.absolute_path
    )
    rule, limit = error.validator, error.validator_value
    bound = error.schema.get("x-bound") if isinstance(error.schema, Mapping) else None
    if rule == "maxLength" and bound in BOUND_NAMES:  # a bound of config.py: its own words
        return f"{where}: {refusal(bound, limit)}"
    reasons = {
        "type": f"must be of type {limit}",
        "maxLength": f"longer than {limit:,} characters" if isinstance(limit, int) else "",
        "minLength": f"shorter than {limit} character(s)" if isinstance(limit, int) else "",
        "maximum": f"above {limit}",
        "minimum": f"below {limit}",
        "exclusiveMinimum": f"must be above {limit}",
        "maxItems": f"more than {limit:,} items" if isinstance(limit, int) else "",
        "minItems": f"fewer than {limit} item(s)",
        "maxProperties": f"more than {limit} fields",
        "enum": "must be " + " or ".join(repr(v) for v in limit) if isinstance(limit, list) else "",
        "const": f"must be {limit!r}",
        "pattern": "has characters that are not allowed",
    }
    if rule == "required":
        missing = [name for name in limit if name not in (error.instance or {})]
        return f"{where}: needs {', '.join(repr(m) for m in missing)}"
    if rule == "additionalProperties":
        return f"{where}: has fields the API does not know"
    return f"{where}: {reasons.get(rule) or 'does not match the schema (' + str(rule) + ')'}"


_PARAM = re.compile(r"<(?:(\w+)(?:\([^)]*\))?:)?(\w+)>")


def openapi_document(app: Flask) -> dict[str, Any]:
    """Build the document from the documented ``/api/v1`` rules of ``app``."""
    config, paths = app.config, {}
    for rule in sorted(app.url_map.iter_rules(), key=lambda r: r.rule):
        if not rule.rule.startswith("/api/v1/"):
            continue
        operation = getattr(app.view_functions[rule.endpoint], "openapi", None)
        if operation is None:
            continue
        path = _PARAM.sub(r"{\2}", rule.rule.removeprefix("/api/v1"))
        params = [
            {"name": name, "in": "path", "required": True, "schema": _path_schema(conv)}
            for conv, name in _PARAM.findall(rule.rule)
        ] + [
            {"name": name, "in": "query", "required": False, "schema": resolve(s, config)}
            for name, s in operation.query.items()
        ]
        for method in sorted(rule.methods - {"HEAD", "OPTIONS"}):
            paths.setdefault(path, {})[method.lower()] = _operation(
                operation, rule.endpoint, params, config, method.lower() in UNSAFE
            )
    return {
        "openapi": "3.1.0",
        "info": {
            "title": "MINDFIRL API",
            "version": "1",
            "description": "Privacy-preserving interactive record linkage. Authenticate "
            "with 'Authorization: Bearer <token>'; a token is made with "
            "'.venv/bin/flask --app app users token NAME' and shown once.",
        },
        "servers": [{"url": "/api/v1"}],
        "components": {
            "securitySchemes": {"bearer": {"type": "http", "scheme": "bearer"}},
            "schemas": {"Error": ERROR},
        },
        "security": [{"bearer": []}],
        "paths": paths,
    }


def _path_schema(converter: str) -> dict[str, Any]:
    if converter == "int":
        return {"type": "integer", "minimum": 0, "maximum": 2**31 - 1}  # an id column
    return {"type": "string", "minLength": 1, "pattern": "^[^/]+$"}


def _operation(op: Operation, endpoint: str, params, config, unsafe: bool) -> dict[str, Any]:
    error = {"$ref": "#/components/schemas/Error"}
    if op.media_type == "application/json":
        ok_content = {"application/json": {"schema": resolve(op.ok or {}, config)}}
    else:
        ok_content = {op.media_type: {"schema": {"type": "string"}}}
    responses: dict[str, Any] = {str(op.status): {"description": "OK", "content": ok_content}}
    codes = set(COMMON_ERRORS) | set(op.errors)
    codes |= {400} if op.body or op.query or op.upload or unsafe else set()
    # A closed-out project refuses what needs its values (app.projects.custody.gate).
    names = {p["name"] for p in params}
    codes |= {410} if names & {"project_id", "assignment_id"} else set()
    for code in sorted(codes):
        responses[str(code)] = {
            "description": ERROR_NAMES[code],
            "content": {"application/json": {"schema": error}},
        }
    out: dict[str, Any] = {
        "operationId": endpoint.removeprefix("api."),
        "summary": op.summary,
        "parameters": params,
        "responses": responses,
    }
    if op.body is not None:
        out["requestBody"] = {
            "required": op.body_required,
            "content": {"application/json": {"schema": resolve(op.body, config)}},
        }
    elif op.upload:
        binary = {"schema": {"type": "string", "format": "binary"}}
        out["requestBody"] = {"required": True, "content": {m: binary for m in op.upload}}
    return out


def register_openapi_route(bp) -> None:
    @bp.get("/openapi.json")
    @documented("This OpenAPI document", ok={"type": "object", "required": ["openapi", "paths"]})
    def openapi_json():
        """The document is public: it describes the API, not any data."""
        return jsonify(openapi_document(current_app._get_current_object()))
