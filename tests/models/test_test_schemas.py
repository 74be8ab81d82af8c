"""The suite's own PostgreSQL schemas: made from the statements ``db.create_all()`` sent once
(``tests/conftest.py``), they hold what ``db.create_all()`` itself makes."""

from __future__ import annotations

import uuid

import pytest
import sqlalchemy as sa

from app import create_app
from app.extensions import db
from tests.conftest import _pg_admin, _pg_config

pytestmark = pytest.mark.postgres

CATALOG = """
select 'column', table_name || '.' || column_name || ' ' || data_type || ' '
       || is_nullable || ' ' || coalesce(column_default, '')
  from information_schema.columns where table_schema = :schema
union all
select 'index', tablename || ' ' || indexdef
  from pg_indexes where schemaname = :schema
union all
select 'constraint', conrelid::regclass::text || ' ' || pg_get_constraintdef(c.oid)
  from pg_constraint c join pg_namespace n on n.oid = c.connamespace where n.nspname = :schema
union all
select 'trigger', event_object_table || ' ' || trigger_name || ' ' || action_timing || ' '
       || event_manipulation || ' ' || action_statement
  from information_schema.triggers where trigger_schema = :schema
union all
select 'function', p.proname || ' ' || md5(p.prosrc)
  from pg_proc p join pg_namespace n on n.oid = p.pronamespace where n.nspname = :schema
union all
select 'statistics', c.relname || '.' || a.attname || ' ' || a.attstattarget
  from pg_attribute a join pg_class c on c.oid = a.attrelid
  join pg_namespace n on n.oid = c.relnamespace
 where n.nspname = :schema and a.attnum > 0 and a.attstattarget >= 0
"""


def _catalog(conn, schema: str) -> list[tuple[str, str]]:
    rows = conn.execute(sa.text(CATALOG), {"schema": schema}).all()
    unnamed = (
        (kind, text.replace(f'"{schema}".', "").replace(f"{schema}.", "")) for kind, text in rows
    )
    return sorted(unnamed)


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
            expected = _catalog(conn, theirs)
            assert len([k for k, _ in expected if k == "column"]) > 100
            assert {"index", "constraint", "trigger", "function"} <= {k for k, _ in expected}
            assert _catalog(conn, ours) == expected
    finally:
        with _pg_admin().connect() as conn:
            conn.execute(sa.text(f'DROP SCHEMA "{theirs}" CASCADE'))
