"""The suite's own PostgreSQL schemas: made from the statements ``db.create_all()`` sent once
(``tests/conftest.py``), they hold what ``db.create_all()`` itself makes; emptied after a test
(``tests/pg_schemas.py``), they are again what a new one is, or they are dropped."""

from __future__ import annotations

import secrets
import uuid

import pytest
import sqlalchemy as sa

from app import create_app
from app.extensions import db
from app.models.job import Job
from tests.conftest import PG_URL, _pg_admin, _pg_config, _pg_ddl, _pg_url
from tests.factories import make_user
from tests.pg_schemas import TRUNCATE_ABOVE, Schemas, catalog

pytestmark = pytest.mark.postgres


def test_a_tests_schema_is_what_create_all_makes(app, database_config):
    ours = database_config["SQLALCHEMY_ENGINE_OPTIONS"]["connect_args"]["options"]
    ours = ours.split("search_path=")[1].split()[0]
    theirs = f"t_{uuid.uuid4().hex[:16]}"
    with _pg_admin().connect() as conn:
        conn.execute(sa.text(f'CREATE SCHEMA "{theirs}"'))
    try:
        made = create_app({"TESTING": True, "SECRET_KEY": "x", **_pg_config(theirs)})
        with made.app_context():
            db.create_all()
            db.session.remove()
            for engine in db.engines.values():
                engine.dispose()
        with _pg_admin().connect() as conn:
            expected = catalog(conn, theirs)
            assert len([k for k, _ in expected if k == "column"]) > 100
            assert {"index", "constraint", "trigger", "function"} <= {k for k, _ in expected}
            assert catalog(conn, ours) == expected
    finally:
        with _pg_admin().connect() as conn:
            conn.execute(sa.text(f'DROP SCHEMA "{theirs}" CASCADE'))


SIZES = """
select c.relname, pg_relation_size(c.oid)
       + case when c.reltoastrelid <> 0 then pg_relation_size(c.reltoastrelid) else 0 end
  from pg_class c where c.relnamespace = cast(:schema as regnamespace) and c.relkind = 'r'
"""


def _state(conn, schema: str) -> dict:
    """What a later test could see of a schema besides its catalog."""
    conn.exec_driver_sql(f'SET search_path = "{schema}"')
    named = {"schema": schema}
    tables = conn.execute(sa.text(
        "select relname from pg_class where relnamespace = cast(:schema as regnamespace)"
        " and relkind = 'r'"), named).scalars().all()  # fmt: skip
    return {
        "catalog": catalog(conn, schema),
        "sizes": dict(conn.execute(sa.text(SIZES), named).all()),
        "rows": dict(conn.exec_driver_sql(" union all ".join(
            f"select '{table}', count(*) from \"{table}\"" for table in tables)).all()),
        "pages and rows": conn.execute(sa.text(
            "select relname, relpages, reltuples, relallvisible from pg_class"
            " where relnamespace = cast(:schema as regnamespace) order by relname"), named).all(),
        "statistics": conn.execute(sa.text(
            "select count(*) from pg_statistic where starelid in (select oid from pg_class"
            " where relnamespace = cast(:schema as regnamespace))"), named).scalar(),
        "sequences": conn.execute(sa.text(
            "select sequencename, last_value from pg_sequences where schemaname = :schema"
            " order by 1"), named).all(),
    }  # fmt: skip


def _new_name() -> str:
    return f"t_{uuid.uuid4().hex[:16]}"


@pytest.mark.parametrize("error_characters", [20_000, 4_000_000])
def test_a_schema_given_back_is_again_what_a_new_one_is(error_characters):
    schemas = Schemas(_pg_url(PG_URL), _pg_ddl)
    first, other = schemas.take(_new_name()), schemas.take(_new_name())
    try:
        with _pg_admin().connect() as conn:
            new = _state(conn, other)
        assert len(new["sizes"]) > 20 and set(new["sizes"].values()) == {0}
        assert set(new["rows"].values()) == {0} and new["rows"].keys() == new["sizes"].keys()
        made = create_app({"TESTING": True, "SECRET_KEY": "x", **_pg_config(first)})
        with made.app_context():
            users = [make_user(f"u{i}").id for i in range(3)]
            # a value random enough for the TOAST table (and past TRUNCATE_ABOVE in the files)
            error = secrets.token_hex(error_characters // 2)
            db.session.add(Job(kind="x", status="failed", error=error))
            db.session.commit()
            db.session.execute(sa.text("analyze users, jobs"))  # not the others' schemas
            db.session.commit()
            db.session.remove()
            db.engines[None].dispose()
        assert users == [1, 2, 3]
        with _pg_admin().connect() as conn:
            used = _state(conn, first)
        assert used["rows"]["users"] == 3 and used["rows"]["jobs"] == 1
        assert used["sizes"]["jobs"] > error_characters // 2
        assert used["statistics"] > 0 and used["sequences"] != new["sequences"]
        assert used["pages and rows"] != new["pages and rows"]
        truncated = sum(used["sizes"].values()) > TRUNCATE_ABOVE
        assert truncated == (error_characters > TRUNCATE_ABOVE)

        schemas.give_back(first)
        assert schemas.take(_new_name()) == first  # reused, not made again
        with _pg_admin().connect() as conn:
            again = _state(conn, first)
        if not truncated:  # the deleted rows stay in the files until a vacuum
            assert again["sizes"] == used["sizes"]
            again["sizes"] = new["sizes"]
        assert again == new
        made = create_app({"TESTING": True, "SECRET_KEY": "x", **_pg_config(first)})
        with made.app_context():
            assert make_user("again").id == 1
            db.session.remove()
            db.engines[None].dispose()
    finally:
        for name in (first, other):
            schemas.drop(name)
        schemas.close()


@pytest.mark.parametrize(
    "change",
    [
        "create table extra (id int)",
        "create index ix_extra on users (id, username)",
        "alter table users add column extra int",
        "alter table users alter column username drop not null",
        "create function extra() returns int language sql as 'select 1'",
        "alter table users disable trigger all",
    ],
)
def test_a_schema_whose_catalog_a_test_changed_is_dropped(change):
    schemas = Schemas(_pg_url(PG_URL), _pg_ddl)
    name = schemas.take(_new_name())
    try:
        with _pg_admin().connect() as conn:
            conn.exec_driver_sql(f'SET search_path = "{name}"; {change}')
        schemas.give_back(name)
        with _pg_admin().connect() as conn:
            left = conn.execute(
                sa.text("select count(*) from pg_namespace where nspname = :name"), {"name": name}
            )
            assert left.scalar() == 0
        another = schemas.take(_new_name())
        assert another != name
        schemas.drop(another)
    finally:
        schemas.drop(name)
        schemas.close()


def test_a_change_undone_leaves_the_schema_reused():
    schemas = Schemas(_pg_url(PG_URL), _pg_ddl)
    name = schemas.take(_new_name())
    try:
        with _pg_admin().connect() as conn:
            conn.exec_driver_sql(
                f'SET search_path = "{name}"; create table extra (id int); drop table extra;'
                " alter table users alter column username drop not null;"
                " alter table users alter column username set not null"
            )
        schemas.give_back(name)
        assert schemas.take(_new_name()) == name
    finally:
        schemas.drop(name)
        schemas.close()


INSERT_USERS = (
    "insert into users (username, role, password_hash, active, failed_logins,"
    " must_change_password, created_at)"
    " select :prefix || g, 'worker', 'x', true, 0, false, now()"
    " from generate_series(1, :count) g order by random()"
)


@pytest.mark.parametrize("count", [20, 3_000])
def test_rows_land_in_a_given_back_schema_in_insertion_order(count):
    """A seq scan of a new table returns rows in the order they were inserted (tests read them
    so); the earlier tests' dead rows and free space must not change that. Six tests in a row
    in one schema, a vacuum in the third: with every table's rows deleted instead, the sixth
    reads 3,000 rows out of order."""
    schemas = Schemas(_pg_url(PG_URL), _pg_ddl)
    name = schemas.take(_new_name())
    try:
        for test in range(6):
            with _pg_admin().connect() as conn:
                conn.exec_driver_sql(f'SET search_path = "{name}"')
                conn.execute(sa.text(INSERT_USERS), {"prefix": f"test {test} ", "count": count})
                scanned = conn.exec_driver_sql("select id from users").scalars().all()
                assert scanned == list(range(1, count + 1))
                if test == 2:
                    conn.exec_driver_sql("vacuum users")
            schemas.give_back(name)
            assert schemas.take(_new_name()) == name
            with _pg_admin().connect() as conn:
                size = conn.execute(sa.text(SIZES), {"schema": name}).all()
            # rows deleted from one page without a free-space map, else the table truncated
            assert (dict(size)["users"] > 0) == (count == 20 and test != 2)
    finally:
        schemas.drop(name)
        schemas.close()
