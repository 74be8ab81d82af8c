"""Schemathesis against the app (WSGI, no network): no 5xx, answers as documented.

Every documented operation is called by each role with generated bodies, both ones that fit
the schema and ones that do not (negative mode), with the ids of a real project, assignment
and pair, and (as the manager) with generated ids. Bounded: ``EXAMPLES`` per operation, role
and mode, derandomized so a failure reproduces. Runs on SQLite and, with
``TEST_DATABASE_URL``, on PostgreSQL. The operations are dealt into ``SHARDS`` tests, so that
parallel workers share them; together the shards call every operation.
"""

from __future__ import annotations

import pytest
import schemathesis
from hypothesis import HealthCheck, given, settings
from schemathesis import GenerationMode
from schemathesis.checks import not_a_server_error
from schemathesis.specs.openapi.checks import (
    content_type_conformance,
    response_schema_conformance,
    status_code_conformance,
)
from sqlalchemy import select

from app.extensions import db
from app.models import ApiToken, Pair
from tests.factories import make_assignment, make_token, make_user, paper_project

EXAMPLES = 10
SHARDS = 4
CHECKS = [
    not_a_server_error,
    status_code_conformance,
    content_type_conformance,
    response_schema_conformance,
]


def _setup(app) -> tuple[dict[str, str], dict[str, int]]:
    with app.app_context():
        manager = make_user("mia", "manager")
        worker = make_user("wes", "worker")
        admin = make_user("ada", "admin")
        project = paper_project(manager)
        assignment = make_assignment(project, worker, 0.5)
        pair_id = db.session.scalar(select(Pair.id).where(Pair.project_id == project.id))
        tokens = {u.role: make_token(u) for u in (manager, worker, admin)}
        fuzzed = make_user("fuzzed", "worker")  # the account the admin routes change
        make_token(fuzzed)
        token_id = db.session.scalar(select(ApiToken.id).where(ApiToken.user_id == fuzzed.id))
        ids = {
            "project_id": project.id,
            "assignment_id": assignment.id,
            "pair_id": pair_id,
            "job_id": 1,
            "user_id": fuzzed.id,
            "token_id": token_id,
            "page": 1,
            "kind": "decisions",
        }
        return tokens, ids


@pytest.mark.parametrize("shard", range(SHARDS))
def test_fuzzing_finds_no_server_error_and_no_schema_violation(app, shard):
    tokens, ids = _setup(app)
    schema = schemathesis.openapi.from_wsgi("/api/v1/openapi.json", app)
    operations = sorted(
        (result.ok() for result in schema.get_all_operations()), key=lambda o: o.label
    )
    assert len(operations) >= 19
    for operation in operations[shard::SHARDS]:
        names = {p.name for p in operation.path_parameters}
        real = {name: value for name, value in ids.items() if name in names}
        for role, token in tokens.items():
            headers = {"Authorization": f"Bearer {token}"}
            runs = [(GenerationMode.POSITIVE, real), (GenerationMode.NEGATIVE, real)]
            if role == "manager":
                runs.append((GenerationMode.POSITIVE, None))  # generated ids, one role
            for mode, path_parameters in runs:
                strategy = operation.as_strategy(
                    generation_mode=mode, path_parameters=path_parameters or None
                )
                _run(strategy, headers, f"{operation.label} as {role} ({mode.value})")


def _run(strategy, headers: dict[str, str], label: str) -> None:
    @given(case=strategy)
    @settings(
        max_examples=EXAMPLES,
        deadline=None,
        database=None,
        derandomize=True,
        suppress_health_check=list(HealthCheck),
    )
    def call(case):
        response = case.call(headers=headers)
        try:
            case.validate_response(response, checks=CHECKS, headers=headers)
        except Exception as exc:
            raise AssertionError(f"{label}: {exc}") from exc

    call()
