"""The jobs' tests use the admins' fixtures (a user of each role)."""

from tests.analytics.conftest import people  # noqa: F401  (a fixture, found by name)
