"""The OpenAPI document of ``/api/v1``: its schemas, and bodies checked against them."""

from app.api.openapi.document import (
    COMMON_ERRORS,
    ERROR,
    ERROR_NAMES,
    BodyValidator,
    Operation,
    Schema,
    check_body,
    check_query,
    describe,
    documented,
    openapi_document,
    register_openapi_route,
    resolve,
)

__all__ = [
    "COMMON_ERRORS",
    "ERROR",
    "ERROR_NAMES",
    "BodyValidator",
    "Operation",
    "Schema",
    "check_body",
    "check_query",
    "describe",
    "documented",
    "openapi_document",
    "register_openapi_route",
    "resolve",
]
