"""The compiled body check (fastjsonschema) and jsonschema agree on every documented body
schema, so taking the fast one's word for a valid body changes no answer."""

from __future__ import annotations

import fastjsonschema
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from hypothesis_jsonschema import from_schema

from app import create_app
from app.api.openapi import BodyValidator, resolve

APP = create_app({"SECRET_KEY": "schemas", "SQLALCHEMY_DATABASE_URI": "sqlite://"})
SCHEMAS = {
    name: resolve(view.openapi.body, APP.config)
    for name, view in sorted(APP.view_functions.items())
    if getattr(view, "openapi", None) is not None and view.openapi.body is not None
}

# Values near the schemas' edges: integers as floats and booleans, bounds, empty and long text.
EDGES = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(-3, 3)
    | st.sampled_from([2**31 - 1, 2**31, 2**63, -(2**63) - 1, 1.0, 0.5, -1.0, 1e300])
    | st.text(max_size=3)
    | st.text(min_size=99, max_size=101),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=8), inner),
    max_leaves=8,
)


def _near(schema) -> st.SearchStrategy:
    """Objects with the schema's own property names (some left out) and edge values."""
    names = sorted(schema.get("properties", {}))
    if not names:
        return EDGES
    return st.dictionaries(st.sampled_from(names) | st.text(max_size=4), EDGES, max_size=6)


def _fast_accepts(validator: BodyValidator, body) -> bool:
    try:
        validator.fast(body)
    except fastjsonschema.JsonSchemaException:
        return False
    return True


def test_every_json_body_of_the_api_is_covered():
    assert {"api.reveal", "api.save_decision"} <= set(SCHEMAS), sorted(SCHEMAS)


@pytest.mark.parametrize("name", sorted(SCHEMAS))
def test_both_checks_accept_what_the_schema_allows(name):
    validator = BodyValidator.of(SCHEMAS[name])

    @settings(max_examples=20, deadline=None, suppress_health_check=list(HealthCheck))
    @given(from_schema(SCHEMAS[name]))
    def check(body):
        assert validator.full.is_valid(body)
        assert _fast_accepts(validator, body)

    check()


@pytest.mark.parametrize("name", sorted(SCHEMAS))
def test_both_checks_agree_near_the_edges(name):
    validator = BodyValidator.of(SCHEMAS[name])

    @settings(max_examples=100, deadline=None, suppress_health_check=list(HealthCheck))
    @given(_near(SCHEMAS[name]))
    def check(body):
        assert _fast_accepts(validator, body) == validator.full.is_valid(body), body

    check()
