"""The write of a reveal: charge the assignment, set the cell's level, append the event.

All three or nothing, and only if the assignment's ``version`` is still the one the reveal was
priced on (compare-and-set) and its project is not closed out. On PostgreSQL it is one
statement (data-modifying CTEs: the cell and the event are inserted from the charge's
``RETURNING``, so an unmatched version writes nothing), atomic even outside a transaction;
on SQLite three statements in the caller's transaction, which holds the write lock. The
statements are built and compiled once.
"""

from __future__ import annotations

from functools import cache

from sqlalchemy import (
    DateTime,
    Float,
    Integer,
    String,
    bindparam,
    exists,
    func,
    insert,
    select,
    update,
)
from sqlalchemy.dialects.postgresql import insert as pg_insert
from sqlalchemy.dialects.sqlite import insert as sqlite_insert

from app.database import pg_rows
from app.models import Assignment, CellState, Project, RevealEvent


def charge(connection, params: dict) -> bool:
    """Run the write with ``params`` (``p_*``, see below); whether the version matched."""
    if connection.dialect.name == "postgresql":
        sql, defaults = _one_statement(connection.dialect)
        return pg_rows(connection, sql, {**defaults, **params})[0][0] == 1
    charged, cell, event = _statements(connection.dialect.name)
    if connection.execute(charged, params).rowcount != 1:
        return False
    connection.execute(cell, params)
    connection.execute(event, params)
    return True


def _p(name: str, type_=None):
    return bindparam(f"p_{name}", type_=type_)


# Only while the project is open, read under a key-share lock of its row: a close-out in
# progress holds it FOR UPDATE (app.projects.custody.closeout), so the charge waits, then
# matches nothing and the reveal reads again and is refused as closed. SQLite renders no lock.
_OPEN = exists(
    select(Project.id)
    .where(Project.id == Assignment.project_id, Project.closed_at.is_(None))
    .with_for_update(read=True, key_share=True)
)
_CHARGE = (
    update(Assignment)
    .where(Assignment.id == _p("assignment"), Assignment.version == _p("version"), _OPEN)
    .values(
        kapr_exact=_p("kapr_exact"),
        kapr=_p("kapr"),
        checks_kapr_exact=_p("checks_exact"),
        chars_disclosed=Assignment.chars_disclosed + _p("gained_real", Integer),
        checks_chars_disclosed=Assignment.checks_chars_disclosed + _p("gained_checks", Integer),
        version=Assignment.version + 1,
    )
)
# Column -> parameter of the cell's and the event's rows.
_CELL = {
    "assignment_id": _p("assignment", Integer),
    "pair_id": _p("pair", Integer),
    "row": _p("row", Integer),
    "attribute_id": _p("attribute", Integer),
    "level": _p("level", String),
}
_EVENT = {
    "assignment_id": _p("assignment", Integer),
    "pair_id": _p("pair", Integer),
    "row": _p("row", Integer),
    "attribute_id": _p("attribute", Integer),
    "user_id": _p("user", Integer),
    "at": _p("at", DateTime(timezone=True)),
    "level_from": _p("level_from", String),
    "level_to": _p("level", String),
    "cost_exact": _p("cost_exact", String),
    "kapr_before_exact": _p("before_exact", String),
    "kapr_after_exact": _p("kapr_exact", String),
    "kapr_after": _p("kapr", Float),
    "chars": _p("gained", Integer),
}
_CELL_KEY = ["assignment_id", "pair_id", "row", "attribute_id"]


def _upsert(dialect_insert, source=None):
    """INSERT the cell's row, or raise its level when the cell has one."""
    if source is None:
        statement = dialect_insert(CellState).values(_CELL)
    else:
        statement = dialect_insert(CellState).from_select(list(_CELL), source)
    return statement.on_conflict_do_update(
        index_elements=_CELL_KEY, set_={"level": statement.excluded.level}
    )


def _charge_in_one_statement():
    """PostgreSQL: the charge, the cell and the event in one round trip (data-modifying CTEs);
    nothing is written unless the charge's compare-and-set matched."""
    charged = _CHARGE.returning(Assignment.id).cte("charged")
    cell = _upsert(pg_insert, select(*_CELL.values()).select_from(charged))
    event = insert(RevealEvent).from_select(
        list(_EVENT), select(*_EVENT.values()).select_from(charged)
    )
    return (
        select(func.count())
        .select_from(charged)
        .add_cte(cell.cte("cell"))
        .add_cte(event.cte("event"))
    )


@cache
def _one_statement(dialect) -> tuple[str, dict]:
    """The PostgreSQL statement compiled once (SQLAlchemy does not cache DML in CTEs)."""
    compiled = _charge_in_one_statement().compile(dialect=dialect)
    return str(compiled), dict(compiled.params)


@cache
def _statements(dialect: str) -> tuple:
    """The charge's statements on SQLite, built once (so compiled once)."""
    if dialect != "sqlite":
        raise NotImplementedError(f"reveals on {dialect}")
    return _CHARGE, _upsert(sqlite_insert), insert(RevealEvent).values(_EVENT)
