"""The OpenAPI document covers every /api/v1 route and states the enforced limits."""

from __future__ import annotations

import re

import jsonschema


def test_every_api_route_is_in_the_document(app, client):
    document = client.get("/api/v1/openapi.json").get_json()
    listed = {
        (method.upper(), "/api/v1" + path)
        for path, operations in document["paths"].items()
        for method in operations
    }
    routes = {
        (method, re.sub(r"<(?:[^:>]+:)?(\w+)>", r"{\1}", rule.rule))
        for rule in app.url_map.iter_rules()
        if rule.rule.startswith("/api/v1/")
        for method in rule.methods - {"HEAD", "OPTIONS"}
    }
    assert routes and routes <= listed, f"undocumented: {sorted(routes - listed)}"
    assert listed <= routes


def test_every_schema_in_the_document_is_valid_json_schema(client):
    document = client.get("/api/v1/openapi.json").get_json()
    assert document["openapi"] == "3.1.0"
    for path, operations in document["paths"].items():
        for method, operation in operations.items():
            assert operation["summary"] and operation["responses"], (method, path)
            schemas = [p["schema"] for p in operation["parameters"]]
            for part in [operation.get("requestBody", {}), *operation["responses"].values()]:
                schemas += [c["schema"] for c in part.get("content", {}).values()]
            for schema in schemas:
                jsonschema.Draft202012Validator.check_schema(schema)


def test_the_document_states_the_configured_limits(app, client):
    app.config["MAX_NAME_CHARS"] = 123
    document = client.get("/api/v1/openapi.json").get_json()
    body = document["paths"]["/projects"]["post"]["requestBody"]["content"]["application/json"]
    assert body["schema"]["properties"]["name"]["maxLength"] == 123
    record = body["schema"]["properties"]["records"]["items"]
    assert record["additionalProperties"]["anyOf"][0]["maxLength"] == app.config["MAX_VALUE_CHARS"]
