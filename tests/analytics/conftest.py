"""Fixtures for the admins' pages: a user of each role and a logged-in client helper."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.factories import PASSWORD, make_user

TRAJECTORY = Path(__file__).resolve().parents[1] / "data" / "trajectory"


@pytest.fixture(scope="session")
def expected() -> dict:
    return json.loads((TRAJECTORY / "expected.json").read_text())


@pytest.fixture(scope="session")
def original_csv() -> str:
    return (TRAJECTORY / "mock_original.csv").read_text(encoding="utf-8")


@pytest.fixture(scope="session")
def anonymized_csv() -> str:
    return (TRAJECTORY / "mock_anonymized.csv").read_text(encoding="utf-8")


@pytest.fixture
def people(app):
    with app.app_context():
        return {
            name: make_user(name, role).id
            for name, role in [("ada", "admin"), ("max", "manager"), ("wes", "worker")]
        }


def login(client, username: str):
    response = client.post("/login", data={"username": username, "password": PASSWORD})
    assert response.status_code == 302
    return client


@pytest.fixture
def admin(client, people):
    return login(client, "ada")
