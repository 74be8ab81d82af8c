"""A worker's answer in three statements: who owns the assignment, the new event, the summary.

The request path of ``POST /api/v1/assignments/<id>/decisions`` (one in ten of a worker's
requests in ``bench/load.py``): on PostgreSQL, with the session holding no connection yet, the
statements run in autocommit (:mod:`app.review.connection`): the event is one ``INSERT``,
atomic on its own, so no BEGIN and COMMIT round trips. The summary (pairs decided, pairs in
the assignment, the tally) is one statement over :func:`~app.models.current_answer_ids`, the
one definition of "the answer of a pair". Statements are compiled once per dialect.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from functools import cache

from sqlalchemy import (
    BigInteger,
    Boolean,
    Integer,
    String,
    bindparam,
    exists,
    func,
    insert,
    literal,
    select,
    union_all,
)

from app.auth.token_cache import account_holds, account_refusal
from app.database import pg_rows
from app.extensions import db
from app.models import (
    CLEARED,
    Assignment,
    AssignmentPair,
    DecisionEvent,
    Project,
    QualityCheck,
    Role,
    User,
)
from app.models.base import utcnow
from app.models.events import current_answer_ids
from app.review.answers.refusals import (
    CLOSED,
    DECISIONS,
    AccountChanged,
    AnswerChanged,
    AnswersClosed,
    AnswersPaused,
    NotInAssignment,
    check_answer,
)
from app.review.breaks import Session, current_session
from app.review.connection import statement_connection
from app.review.reveal.read import named
from app.review.reveal.refusals import PAUSED

#: ``version`` not given: the answer is saved whatever came before (last writer wins).
ANY_VERSION = object()


@dataclass(frozen=True, slots=True)
class Summary:
    decided: int  # pairs of the assignment with an answer
    total: int  # pairs of the assignment
    tally: dict[str, int]  # see :func:`app.review.answers.decisions.tally`


@dataclass(frozen=True, slots=True)
class SavedAnswer:
    id: int
    summary: Summary
    session: Session | None = None  # the reviewing session as the answer left it
    pair_id: int | None = None  # the pair answered
    is_check: bool = False  # one of the assignment's known-truth checks


def save_answer(
    assignment_id: int,
    pair_id: int,
    decision,
    confidence,
    *,
    by: User,
    version=ANY_VERSION,
    token: str | None = None,
):
    """Append ``by``'s answer for one pair of their assignment; return its id and the summary.

    ``pair_id`` is what the worker calls the pair: its handle in an assignment with checks,
    else its id (:mod:`app.review.handles`).

    ``version``, when given, is the pair's newest decision event id the client read (None: it
    read none): if the pair has another now, :class:`AnswerChanged` and nothing is saved.
    Refusals, in this order: :class:`NotInAssignment` (no such assignment),
    :class:`PermissionError` (another worker's), :class:`DecisionError` (not a valid
    answer), :class:`NotInAssignment` (the pair is not in the assignment),
    :class:`AnswerChanged`; :class:`AccountChanged` when ``by``'s account or its bearer token
    (``token``, the request's digest) stopped working since it was cached. The caller commits.
    """
    connection, _ = statement_connection(db.session(), DecisionEvent)
    params = {"assignment_id": assignment_id, "pair_id": pair_id, "token": token}
    found = _rows(connection, _OWNER, params)
    if not found:
        raise NotInAssignment("no such assignment")
    worker_id, allow_unsure, closed_at, newest, holds, named_pair, is_check, paused, *limits = (
        found[0]
    )
    if worker_id != by.id:
        raise PermissionError("this assignment belongs to another worker")
    if not holds:  # deactivated, demoted or its token revoked since it was cached
        raise AccountChanged(*account_refusal(connection, by.id, token, Role.WORKER.value))
    if closed_at is not None:  # read with the owner: a closed project costs no query
        raise AnswersClosed(CLOSED)
    if paused:
        raise AnswersPaused(PAUSED)
    check_answer(decision, confidence, bool(allow_unsure))
    if named_pair is None:
        raise NotInAssignment("this pair is not part of the assignment")
    if version is not ANY_VERSION and version != newest:
        raise AnswerChanged(newest, answer_of(connection, newest))
    now = utcnow()
    session = current_session(connection, assignment_id, *limits, now=now)
    event_id = append_answer(
        connection, assignment_id, named_pair, decision, confidence, by.id, session.due, now
    )
    summary = answer_summary(connection, assignment_id)
    return SavedAnswer(event_id, summary, session, named_pair, bool(is_check))


def append_answer(
    connection,
    assignment_id,
    pair_id,
    decision,
    confidence,
    user_id,
    past_break: bool = False,
    at=None,
) -> int:
    """Insert one checked decision event; return its id (the one writer of answers).

    ``past_break``: made past the project's break reminder (:mod:`app.review.breaks`).
    Raises :class:`AnswersClosed` when the project is closed out by then: the check made
    under the project row's lock, so no answer lands after a close-out read the answers.
    """
    params = {
        "assignment_id": assignment_id,
        "pair_id": pair_id,
        "user_id": user_id,
        "at": at or utcnow(),
        "decision": decision,
        "confidence": confidence,
        "past_break": bool(past_break),
    }
    inserted = _rows(connection, _INSERT, params)
    if not inserted:
        raise AnswersClosed(CLOSED)
    return inserted[0][0]


def answer_of(connection, event_id: int | None) -> tuple[str, str | None] | None:
    """The answer an event gives, None for no event or a clear (a refusal's answer only)."""
    if event_id is None:
        return None
    row = connection.execute(
        select(DecisionEvent.decision, DecisionEvent.confidence).where(DecisionEvent.id == event_id)
    ).one()
    return None if row.decision == CLEARED else (row.decision, row.confidence)


def answer_summary(connection, assignment_id: int) -> Summary:
    """Pairs decided, pairs in the assignment and the tally of current answers, in one read."""
    decided, total = 0, 0
    counts: Counter[str] = Counter({d: 0 for d in DECISIONS})
    for decision, confidence, n, in_assignment in _rows(
        connection, _SUMMARY, {"assignment_id": assignment_id}
    ):
        if decision is None:  # the row of the assignment's pair count
            total = n
            continue
        decided += in_assignment
        counts[decision] += n
        if confidence:
            counts[f"{decision}-{confidence}"] += n
    return Summary(decided, total, dict(counts))


def _rows(connection, statement, params: dict) -> list:
    if connection.dialect.name == "postgresql":
        sql, defaults = _compiled(statement, connection.dialect)
        return pg_rows(connection, sql, {**defaults, **params})
    return connection.execute(statement, params).all()


@cache
def _compiled(statement, dialect) -> tuple[str, dict]:
    compiled = statement.compile(dialect=dialect)
    return str(compiled), dict(compiled.params)


_ASSIGNMENT = bindparam("assignment_id")
# The pair the worker's name names (its handle, or its id without one: app.review.handles).
_NAMED = (
    select(AssignmentPair.pair_id)
    .where(
        AssignmentPair.assignment_id == Assignment.id,
        named(bindparam("pair_id", type_=BigInteger)),  # a handle may pass 2**31
    )
    .correlate(Assignment)
    .scalar_subquery()
)
_OWNER = (
    select(
        Assignment.worker_id,
        Project.allow_unsure,
        Project.closed_at,
        # the pair's version: its newest event (ix_decision_events_assignment_pair)
        select(func.max(DecisionEvent.id))
        .where(DecisionEvent.assignment_id == Assignment.id, DecisionEvent.pair_id == _NAMED)
        .correlate(Assignment)
        .scalar_subquery(),
        account_holds(Assignment.worker_id, Role.WORKER.value),
        _NAMED,
        exists().where(QualityCheck.assignment_id == Assignment.id, QualityCheck.pair_id == _NAMED),
        Assignment.paused,
        Project.break_minutes,
        Project.break_decisions,
    )
    .join(Project, Project.id == Assignment.project_id)
    .where(Assignment.id == _ASSIGNMENT)
)
# The insert reads the project's row under a key-share lock and only while it is open: it
# waits for a close-out in progress (which holds the row FOR UPDATE) and then, re-checking
# the row (READ COMMITTED), inserts nothing; a close-out after it waits for its commit and
# counts it. SQLite renders no lock: its one writer orders them, the check stays.
_INSERT = (
    insert(DecisionEvent)
    .from_select(
        ["assignment_id", "pair_id", "user_id", "at", "decision", "confidence", "past_break"],
        select(
            bindparam("assignment_id", type_=Integer),
            bindparam("pair_id", type_=Integer),
            bindparam("user_id", type_=Integer),
            bindparam("at", type_=DecisionEvent.at.type),
            bindparam("decision", type_=String),
            bindparam("confidence", type_=String),
            bindparam("past_break", type_=Boolean),
        )
        .where(
            Project.id
            == select(Assignment.project_id).where(Assignment.id == _ASSIGNMENT).scalar_subquery(),
            Project.closed_at.is_(None),
        )
        .with_for_update(read=True, key_share=True, of=Project.__table__),
    )
    .returning(DecisionEvent.id)
)
_IN_ASSIGNMENT = select(AssignmentPair.pair_id).where(AssignmentPair.assignment_id == _ASSIGNMENT)
# One row per (decision, confidence) of the current answers, then the pair count
# (decision NULL): progress and tally of app.review.answers.decisions in one read.
_SUMMARY = union_all(
    select(
        DecisionEvent.decision,
        DecisionEvent.confidence,
        func.count(),
        func.count().filter(DecisionEvent.pair_id.in_(_IN_ASSIGNMENT)),
    )
    .where(DecisionEvent.id.in_(current_answer_ids(DecisionEvent.assignment_id == _ASSIGNMENT)))
    .group_by(DecisionEvent.decision, DecisionEvent.confidence),
    select(
        literal(None, String),
        literal(None, String),
        func.count(),
        literal(0),
    ).where(AssignmentPair.assignment_id == _ASSIGNMENT),
)
