"""Step 1 of a reveal in one statement: the assignment's budget, KAPR and ``version``, the
pair's position and both records' values, the project's scale and the pair's stored cells.

One row per stored cell of the pair (at least one row); none when the assignment is not the
user's or the pair is not in it, or when the user is no longer an active worker or, for a
bearer request (``token``: its digest, else None), the token is gone: an account change
committed anywhere stops the next reveal with no statement of its own (issue 42.5). A pair
of another project than the assignment's is a synthetic check (its checks project's,
docs/quality.md).
"""

from __future__ import annotations

from functools import cache

from psycopg.rows import namedtuple_row
from sqlalchemy import BigInteger, and_, bindparam, func, or_, select
from sqlalchemy.orm import aliased

from app.auth.token_cache import MANAGING, account_holds, account_refusal
from app.database import pg_rows
from app.models import Assignment, AssignmentPair, CellState, Pair, Project, Record, Role
from app.review.reveal.refusals import AccountChanged, NotInAssignment

_RA, _RB, _LINKS = aliased(Record), aliased(Record), aliased(AssignmentPair)
_NAME = bindparam("pair_id", type_=BigInteger)  # a handle may pass 2**31


def named(name):
    """The assignment's pair the worker calls ``name``: its handle, or its id when it has no
    handle (an assignment without checks, :mod:`app.review.handles`)."""
    return or_(
        AssignmentPair.handle == name,
        and_(AssignmentPair.handle.is_(None), AssignmentPair.pair_id == name),
    )


_N_PAIRS = (
    select(func.count())
    .select_from(_LINKS)
    .where(_LINKS.assignment_id == Assignment.id)
    .correlate(Assignment)
    .scalar_subquery()
)
_READ = (
    select(
        Assignment.worker_id,
        Assignment.version,
        Assignment.kapr_exact,
        Assignment.budget,
        Assignment.chars_disclosed,
        Assignment.chars_total,
        AssignmentPair.position,
        _RA.values,
        _RA.source_id,
        _RB.values,
        _RB.source_id,
        Project.id,
        Project.created_at,
        Project.kappa,
        Project.evidence_model,
        Project.records_version,
        _N_PAIRS,
        CellState.row,
        CellState.attribute_id,
        CellState.level,
        Project.closed_at,
        Pair.project_id,
        Assignment.checks_kapr_exact,
        Assignment.synthetic_pairs,
        Assignment.paused,
        AssignmentPair.pair_id,
        Assignment.checks_chars_disclosed,
        Assignment.checks_chars_total,
    )
    .select_from(Assignment)
    .join(AssignmentPair, and_(AssignmentPair.assignment_id == Assignment.id, named(_NAME)))
    .join(Pair, Pair.id == AssignmentPair.pair_id)
    .join(_RA, _RA.id == Pair.record_a_id)
    .join(_RB, _RB.id == Pair.record_b_id)
    .join(Project, Project.id == Assignment.project_id)
    .outerjoin(
        CellState,
        and_(CellState.assignment_id == Assignment.id, CellState.pair_id == Pair.id),
    )
    .where(
        Assignment.id == bindparam("assignment_id"),
        Assignment.worker_id == bindparam("user"),
        account_holds(Assignment.worker_id, Role.WORKER.value, Assignment.resolver),
    )
)


def read_pair(connection, params: dict) -> list:
    """The rows of the read for ``params`` (``assignment_id``, ``pair_id``: the worker's name
    for the pair, ``user``, ``token``).

    On PostgreSQL the statement is compiled once and run on the driver's cursor, which
    decodes JSON and timestamps itself (no per-call cache key or result metadata).
    """
    if connection.dialect.name == "postgresql":
        sql, defaults = _compiled_read(connection.dialect)
        return pg_rows(connection, sql, {**defaults, **params}, namedtuple_row)
    return connection.execute(_READ, params).all()


@cache
def _compiled_read(dialect) -> tuple[str, dict]:
    compiled = _READ.compile(dialect=dialect)
    return str(compiled), dict(compiled.params)


def explain_missing(connection, assignment_id: int, user_id: int, token: str | None):
    """Raise the refusal for a reveal whose read (:func:`read_pair`) found nothing: the account
    changed (:class:`AccountChanged`), or no such assignment or pair of the user's."""
    found = connection.execute(
        select(Assignment.worker_id, Assignment.resolver).where(Assignment.id == assignment_id)
    ).first()
    roles = MANAGING if found is not None and found.resolver else Role.WORKER.value
    refused = account_refusal(connection, user_id, token, roles)
    if refused is not None:
        raise AccountChanged(refused[1], code=refused[0])
    if found is None or found.worker_id != user_id:
        raise NotInAssignment("no such assignment of yours")
    raise NotInAssignment("this pair is not in your assignment")
