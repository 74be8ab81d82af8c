"""The PostgreSQL schemas of one test process: each made once with every table, emptied between
the tests that use it, so that a test does not pay for its own DDL.

A schema given back after a test is reused only when it is again what a new one would be, as
far as a test can see through SQL:

- its catalog is the one it had when made (the same tables, columns, indexes, constraints,
  triggers and functions: :data:`CATALOG`), or it is dropped. The full comparison costs 15 ms,
  so it runs only when a catalog row of the schema is no longer the one seen last
  (:data:`CATALOG_ROWS`: the row versions, 3 ms);
- every table a test wrote to is emptied, so that the next test's rows land where they would in
  a new table. A table without a free-space map is filled from its last page on, in the order
  of the inserts, whatever dead rows the pages before it hold: its rows are deleted (triggers
  and foreign-key checks off; 2 ms for them all). A table with one (a vacuum made it,
  or a page filled up) could put new rows in the space of old ones, and is truncated with the
  tables that refer to it (40 ms when that is every table); so is everything once the files
  hold more than :data:`TRUNCATE_ABOVE` bytes, so that dead rows stay few;
- the planner's statistics of its tables are deleted, its page and row counts put back as they
  were when it was made, and its sequences start again.

Deleted rows stay in the tables' files until a vacuum: a test that reads the server's raw files
(the erasure tests, ``tests/projects/custody/disk.py``) has a database of its own. A test that
needs a schema without tables (a migration from empty) asks for :meth:`Schemas.empty`.
Making a schema and its tables, then dropping it, cost 0.1 s a test on a quiet machine and
about 0.3 s with both engines' runs side by side (``docs/testing.md``).
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from dataclasses import dataclass

import sqlalchemy as sa

# What a schema holds, one row per thing, its own name left out (`SET search_path` to it first:
# names it qualifies are then printed bare); compared before a schema is reused.
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
select 'trigger state', c.relname || ' ' || coalesce(k.conname, t.tgname) || ' '
       || t.tgfoid::regproc::text || ' ' || t.tgenabled::text
  from pg_trigger t join pg_class c on c.oid = t.tgrelid
  join pg_namespace n on n.oid = c.relnamespace
  left join pg_constraint k on k.oid = t.tgconstraint where n.nspname = :schema
union all
select 'function', p.proname || ' ' || md5(p.prosrc)
  from pg_proc p join pg_namespace n on n.oid = p.pronamespace where n.nspname = :schema
union all
select 'statistics', c.relname || '.' || a.attname || ' ' || a.attstattarget
  from pg_attribute a join pg_class c on c.oid = a.attrelid
  join pg_namespace n on n.oid = c.relnamespace
 where n.nspname = :schema and a.attnum > 0 and a.attstattarget >= 0
union all
select 'storage', c.relname || '.' || a.attname || ' ' || a.attstorage::text
  from pg_attribute a join pg_class c on c.oid = a.attrelid
  join pg_namespace n on n.oid = c.relnamespace join pg_type t on t.oid = a.atttypid
 where n.nspname = :schema and a.attnum > 0 and a.attstorage <> t.typstorage
union all
select 'relation', c.relname || ' ' || c.relkind::text || ' ' || c.relpersistence::text
  from pg_class c join pg_namespace n on n.oid = c.relnamespace where n.nspname = :schema
"""

# Which catalog rows the schema has, in which version (xmin): a DDL statement, even one that
# leaves the catalog as it was, makes new ones. Statistics and counts are updated in place.
CATALOG_ROWS = """
with relations as (select oid from pg_class where relnamespace = cast(:schema as regnamespace))
select md5(string_agg(row, ',' order by row)) from (
  select 'class ' || oid || ' ' || xmin from pg_class
   where relnamespace = cast(:schema as regnamespace)
  union all select 'attribute ' || attrelid || '.' || attnum || ' ' || xmin from pg_attribute
   where attrelid in (select oid from relations)
  union all select 'default ' || oid || ' ' || xmin from pg_attrdef
   where adrelid in (select oid from relations)
  union all select 'constraint ' || oid || ' ' || xmin from pg_constraint
   where connamespace = cast(:schema as regnamespace)
  union all select 'trigger ' || oid || ' ' || xmin from pg_trigger
   where tgrelid in (select oid from relations)
  union all select 'index ' || indexrelid || ' ' || xmin from pg_index
   where indrelid in (select oid from relations)
  union all select 'function ' || oid || ' ' || xmin from pg_proc
   where pronamespace = cast(:schema as regnamespace)
  union all select 'type ' || oid || ' ' || xmin from pg_type
   where typnamespace = cast(:schema as regnamespace)
) as rows(row)
"""

# The tables whose heap or TOAST file is not empty: how many bytes the two hold, and whether the
# heap has a free-space map (a vacuum, or a page filled up, made one).
WRITTEN = """
select c.relname,
       pg_relation_size(c.oid)
       + case when c.reltoastrelid <> 0 then pg_relation_size(c.reltoastrelid) else 0 end,
       pg_relation_size(c.oid, 'fsm') > 0
  from pg_class c
 where c.relnamespace = cast(:schema as regnamespace) and c.relkind in ('r', 'p')
   and (pg_relation_size(c.oid) > 0
        or (c.reltoastrelid <> 0 and pg_relation_size(c.reltoastrelid) > 0))
"""

TRUNCATE_ABOVE = 1 << 20  # bytes in the written tables' files

FORGET_STATISTICS = """
delete from pg_statistic where starelid in
  (select oid from pg_class where relnamespace = cast(:schema as regnamespace))
"""

# The page and row counts the planner keeps in pg_class (a truncated index has 0 pages and -1
# rows where a new one has 1 and 0): put back as they were when the schema was made.
COUNTS = """
select coalesce(jsonb_agg(jsonb_build_object(
         'relname', relname, 'relpages', relpages, 'reltuples', reltuples,
         'relallvisible', relallvisible)), '[]')::text
  from pg_class where relnamespace = cast(:schema as regnamespace)
"""

RESTORE_COUNTS = """
update pg_class c
   set relpages = v.relpages, reltuples = v.reltuples, relallvisible = v.relallvisible
  from jsonb_to_recordset(cast(:counts as jsonb))
       as v(relname name, relpages integer, reltuples real, relallvisible integer)
 where c.relnamespace = cast(:schema as regnamespace) and c.relname = v.relname
   and (c.relpages, c.reltuples, c.relallvisible)
       is distinct from (v.relpages, v.reltuples, v.relallvisible)
"""

RESTART_SEQUENCES = """
select setval(format('%I.%I', schemaname, sequencename), start_value, false)
  from pg_sequences where schemaname = :schema and last_value is not null
"""


class Changed(Exception):
    """A test changed a schema's catalog: it is dropped, not reused."""


@dataclass
class _Made:
    catalog: str  # the digest of its CATALOG when made
    counts: str  # its COUNTS when made
    rows: str  # its CATALOG_ROWS when last seen as made


class Schemas:
    """The schemas of one process on the server of ``url``, made with the statements ``ddl()``.

    One connection serves them all (its catalog caches stay warm: a new server process spends
    10 ms reading the catalog the first time); each call runs in a transaction of its own, its
    settings local to it.
    """

    def __init__(self, url: str, ddl: Callable[[], str], lock_timeout: str = "10s") -> None:
        self._engine = sa.create_engine(
            url, pool_size=1, max_overflow=1, connect_args={"options": "-csynchronous_commit=off"}
        )
        self._ddl = ddl
        self._lock_timeout = lock_timeout
        self._free: list[str] = []
        self._made: dict[str, _Made] = {}

    def empty(self, name: str) -> str:
        """Make schema ``name`` without tables."""
        with self._engine.begin() as conn:
            conn.exec_driver_sql(f'CREATE SCHEMA "{name}"')
        return name

    def take(self, name: str) -> str:
        """A schema with every table made and empty: one given back, or ``name`` made now."""
        if self._free:
            return self._free.pop()
        named = {"schema": name}
        with self._engine.begin() as conn:
            conn.exec_driver_sql(f'CREATE SCHEMA "{name}"')
            conn.exec_driver_sql(f'SET LOCAL search_path = "{name}"; {self._ddl()}')
            self._made[name] = _Made(
                catalog=digest(conn, name),
                counts=conn.execute(sa.text(COUNTS), named).scalar_one(),
                rows=conn.execute(sa.text(CATALOG_ROWS), named).scalar_one(),
            )
        return name

    def give_back(self, name: str) -> None:
        """Empty ``name`` for the next test, or drop it if it is no longer what it was made."""
        made = self._made.get(name)
        try:
            if made is None:
                raise Changed(name)
            self._empty_tables(name, made)
        except Exception:  # noqa: BLE001 (changed, locked or broken: a new one serves as well)
            self.drop(name)
        else:
            self._free.append(name)

    def drop(self, name: str) -> None:
        self._made.pop(name, None)
        with self._engine.begin() as conn:
            conn.exec_driver_sql(f'DROP SCHEMA IF EXISTS "{name}" CASCADE')

    def close(self) -> None:
        """Drop the schemas waiting for a test (at the end of the process)."""
        while self._free:
            self.drop(self._free.pop())
        self._engine.dispose()

    def _empty_tables(self, name: str, made: _Made) -> None:
        """Empty ``name`` in one transaction, which gives up if a lock is not had in time."""
        named = {"schema": name}
        with self._engine.begin() as conn:
            conn.exec_driver_sql(f"SET LOCAL lock_timeout = '{self._lock_timeout}'")
            conn.exec_driver_sql(f'SET LOCAL search_path = "{name}"')
            rows = conn.execute(sa.text(CATALOG_ROWS), named).scalar_one()
            if rows != made.rows and digest(conn, name) != made.catalog:
                raise Changed(name)
            written = conn.execute(sa.text(WRITTEN), named).all()
            large = sum(size for _, size, _ in written) > TRUNCATE_ABOVE
            truncate = [table for table, _, mapped in written if mapped or large]
            delete = [table for table, _, mapped in written if not (mapped or large)]
            if truncate:
                tables = ", ".join(f'"{table}"' for table in truncate)
                conn.exec_driver_sql(f"TRUNCATE {tables} CASCADE")
            if delete:
                conn.exec_driver_sql("SET LOCAL session_replication_role = replica")
                conn.exec_driver_sql("; ".join(f'DELETE FROM "{table}"' for table in delete))
                conn.exec_driver_sql("SET LOCAL session_replication_role = DEFAULT")
            conn.execute(sa.text(FORGET_STATISTICS), named)
            restored = conn.execute(sa.text(RESTORE_COUNTS), {**named, "counts": made.counts})
            conn.execute(sa.text(RESTART_SEQUENCES), named)
            if truncate or restored.rowcount or rows != made.rows:  # new row versions
                made.rows = conn.execute(sa.text(CATALOG_ROWS), named).scalar_one()


def catalog(conn: sa.Connection, schema: str) -> list[tuple[str, str]]:
    """Schema ``schema``'s :data:`CATALOG`, sorted, its name taken out of the texts."""
    rows = conn.execute(sa.text(CATALOG), {"schema": schema}).all()
    unnamed = (
        (kind, text.replace(f'"{schema}".', "").replace(f"{schema}.", "")) for kind, text in rows
    )
    return sorted(unnamed)


def digest(conn: sa.Connection, schema: str) -> str:
    return hashlib.sha256(repr(catalog(conn, schema)).encode()).hexdigest()
