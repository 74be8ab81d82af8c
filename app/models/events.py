"""Append-only audit events: every reveal and every decision is a row, never an update."""

from __future__ import annotations

import datetime as dt

from sqlalchemy import (
    DDL,
    ColumnElement,
    DateTime,
    ForeignKey,
    Index,
    Select,
    String,
    event,
    false,
    func,
    select,
)
from sqlalchemy.orm import Mapped, mapped_column

from app.extensions import db
from app.models.base import forbid_updates, utcnow


class RevealEvent(db.Model):
    """One reveal: who, when, which cell, the levels and the price. Never the value."""

    __tablename__ = "reveal_events"
    __table_args__ = (Index("ix_reveal_events_assignment", "assignment_id", "id"),)

    id: Mapped[int] = mapped_column(primary_key=True)
    assignment_id: Mapped[int] = mapped_column(ForeignKey("assignments.id", ondelete="CASCADE"))
    pair_id: Mapped[int] = mapped_column()
    row: Mapped[int]
    attribute_id: Mapped[int] = mapped_column(
        ForeignKey("project_attributes.id", ondelete="CASCADE")
    )
    user_id: Mapped[int] = mapped_column(ForeignKey("users.id"))
    at: Mapped[dt.datetime] = mapped_column(DateTime(timezone=True), default=utcnow)
    level_from: Mapped[str] = mapped_column(String(8))
    level_to: Mapped[str] = mapped_column(String(8))
    cost_exact: Mapped[str] = mapped_column(String(200))
    kapr_before_exact: Mapped[str] = mapped_column(String(200))
    kapr_after_exact: Mapped[str] = mapped_column(String(200))
    kapr_after: Mapped[float]
    # Characters this reveal disclosed (the characters meter's step); None for reveals made
    # before it was recorded.
    chars: Mapped[int | None]


#: The ``decision`` of an event that clears a worker's answer: the pair is unanswered again.
CLEARED = "cleared"


class DecisionEvent(db.Model):
    """One answer for a pair; the newest event of a pair and assignment is the answer.

    An event whose ``decision`` is :data:`CLEARED` takes the answer back: while it is the
    newest, the pair has no answer. Read answers through :func:`current_answer_ids` only.
    """

    __tablename__ = "decision_events"
    __table_args__ = (Index("ix_decision_events_assignment_pair", "assignment_id", "pair_id"),)

    id: Mapped[int] = mapped_column(primary_key=True)
    assignment_id: Mapped[int] = mapped_column(ForeignKey("assignments.id", ondelete="CASCADE"))
    pair_id: Mapped[int] = mapped_column()
    user_id: Mapped[int] = mapped_column(ForeignKey("users.id"))
    at: Mapped[dt.datetime] = mapped_column(DateTime(timezone=True), default=utcnow)
    decision: Mapped[str] = mapped_column(String(12))  # same | different | unsure | cleared
    confidence: Mapped[str | None] = mapped_column(String(8))  # high | medium | low
    # Made past the project's break reminder (session length or decisions, docs/quality.md).
    past_break: Mapped[bool] = mapped_column(default=False, server_default=false())


forbid_updates(RevealEvent)
forbid_updates(DecisionEvent)


def current_answer_ids(*where: ColumnElement[bool]) -> Select:
    """Select the ids of the current answers among the decision events matching ``where``.

    The one definition of "the answer of a pair": the newest event of each (assignment,
    pair), unless that event is a clear (then the pair is unanswered and no id is selected).
    """
    newest = (
        select(func.max(DecisionEvent.id))
        .where(*where)
        .group_by(DecisionEvent.assignment_id, DecisionEvent.pair_id)
    )
    return select(DecisionEvent.id).where(
        DecisionEvent.id.in_(newest), DecisionEvent.decision != CLEARED
    )


class AnswerState(db.Model):
    """The newest decision event of each (assignment, pair), kept by the database itself.

    Written only by the trigger ``decision_events_current`` (:data:`TRIGGERS`) on every insert
    into ``decision_events``, whatever inserts it, so it always equals
    :func:`current_answer_ids` (``decision`` is :data:`CLEARED` while the answer is taken
    back). The progress page counts it instead of finding the newest event of a million.
    """

    __tablename__ = "answer_states"
    __table_args__ = (
        Index("ix_answer_states_pair", "pair_id"),
        # Each assignment's answers counted from the index alone (the progress page).
        Index("ix_answer_states_assignment_decision", "assignment_id", "decision"),
    )

    assignment_id: Mapped[int] = mapped_column(
        ForeignKey("assignments.id", ondelete="CASCADE"), primary_key=True
    )
    pair_id: Mapped[int] = mapped_column(primary_key=True)
    event_id: Mapped[int]
    decision: Mapped[str] = mapped_column(String(12))


class PairAnswers(db.Model):
    """A pair's current reviewers' answers in a few integers, kept by the database itself.

    One row per pair a reviewer (not a resolver) ever answered: ``due`` reviewer assignments
    hold it, ``answers`` of them answer it now (``same``, ``different``, ``unsure``), and the
    first two of those by assignment give ``first`` and ``second``. Recomputed from
    :class:`AnswerState` by the triggers of :data:`TRIGGERS` when an answer is saved or cleared
    and when another reviewer gets the pair; the progress page and the conflicts queue group
    these rows instead of the decision events.
    """

    __tablename__ = "pair_answers"
    __table_args__ = (
        Index(
            "ix_pair_answers_counts",
            "project_id", "answers", "due", "same", "different", "unsure", "first", "second",
        ),
    )  # fmt: skip

    pair_id: Mapped[int] = mapped_column(primary_key=True)
    project_id: Mapped[int] = mapped_column(ForeignKey("projects.id", ondelete="CASCADE"))
    due: Mapped[int] = mapped_column(default=0, server_default="0")
    answers: Mapped[int] = mapped_column(default=0, server_default="0")
    same: Mapped[int] = mapped_column(default=0, server_default="0")
    different: Mapped[int] = mapped_column(default=0, server_default="0")
    unsure: Mapped[int] = mapped_column(default=0, server_default="0")
    first: Mapped[str | None] = mapped_column(String(12))
    second: Mapped[str | None] = mapped_column(String(12))


# The pair :pair's row of pair_answers from answer_states (reviewers' current answers only)
# and assignment_pairs (reviewer slots); :pair is NEW.pair_id in a row trigger.
_CURRENT = """FROM answer_states s JOIN assignments a ON a.id = s.assignment_id
    WHERE s.pair_id = {pair} AND s.decision <> 'cleared' AND NOT a.resolver"""
_NTH = "(SELECT s.decision " + _CURRENT + " ORDER BY s.assignment_id LIMIT 1 OFFSET {n})"
_DUE = """(SELECT count(*) FROM assignment_pairs ap JOIN assignments a ON a.id = ap.assignment_id
    WHERE a.project_id = {project} AND NOT a.resolver AND ap.pair_id = {pair})"""
_COLUMNS = "due, answers, same, different, unsure, first, second"


def _values(pair: str, project: str) -> str:
    """The SELECT of ``_COLUMNS`` for one pair."""
    counts = (
        "SELECT count(*), coalesce(sum(CASE WHEN s.decision = 'same' THEN 1 ELSE 0 END), 0), "
        "coalesce(sum(CASE WHEN s.decision = 'different' THEN 1 ELSE 0 END), 0), "
        "coalesce(sum(CASE WHEN s.decision = 'unsure' THEN 1 ELSE 0 END), 0) "
    )
    return (
        f"SELECT {_DUE.format(pair=pair, project=project)}, c.* , "
        f"{_NTH.format(pair=pair, n=0)}, {_NTH.format(pair=pair, n=1)} "
        f"FROM ({counts}{_CURRENT.format(pair=pair)}) c"
    )


_PROJECT = "(SELECT project_id FROM pairs WHERE id = NEW.pair_id)"
#: The first key of the PostgreSQL advisory lock (second: the project) that orders a pair's
#: first answer and another reviewer's new slot for it (see ``assignment_pairs_due``).
LOCK_KEY = 2424
_SQLITE = [
    f"""CREATE TRIGGER decision_events_current AFTER INSERT ON decision_events
BEGIN
    INSERT INTO answer_states (assignment_id, pair_id, event_id, decision)
    VALUES (NEW.assignment_id, NEW.pair_id, NEW.id, NEW.decision)
    ON CONFLICT (assignment_id, pair_id) DO UPDATE
    SET event_id = excluded.event_id, decision = excluded.decision
    WHERE excluded.event_id > answer_states.event_id;
    INSERT OR REPLACE INTO pair_answers (pair_id, project_id, {_COLUMNS})
    SELECT NEW.pair_id, {_PROJECT}, v.* FROM ({_values("NEW.pair_id", _PROJECT)}) v
    WHERE NOT (SELECT resolver FROM assignments WHERE id = NEW.assignment_id);
END""",
    # One more reviewer slot for a pair already answered (SQLite writes one at a time); a
    # pair nobody answered has no row, so a fresh assignment costs one index probe a pair.
    """CREATE TRIGGER assignment_pairs_due AFTER INSERT ON assignment_pairs
BEGIN
    UPDATE pair_answers SET due = due + 1
    WHERE pair_id = NEW.pair_id
    AND NOT (SELECT resolver FROM assignments WHERE id = NEW.assignment_id);
END""",
]
# The pairs of a statement's new events answered by reviewers (not resolvers).
_ANSWERED = """SELECT x.pair_id FROM added x JOIN assignments a ON a.id = x.assignment_id
        WHERE NOT a.resolver"""
_POSTGRESQL = [
    # One call per statement, over all its new events (``added``): a bulk insert of a million
    # answers recounts each pair once, where a call per row took milliseconds a row. The state
    # is the one a call per row leaves: each (assignment, pair)'s newest event, each answered
    # pair's row recounted from them.
    f"""CREATE OR REPLACE FUNCTION decision_events_current() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    INSERT INTO answer_states (assignment_id, pair_id, event_id, decision)
    SELECT DISTINCT ON (x.assignment_id, x.pair_id) x.assignment_id, x.pair_id, x.id, x.decision
    FROM added x ORDER BY x.assignment_id, x.pair_id, x.id DESC
    ON CONFLICT (assignment_id, pair_id) DO UPDATE
    SET event_id = EXCLUDED.event_id, decision = EXCLUDED.decision
    WHERE answer_states.event_id < EXCLUDED.event_id;
    -- Answers share this lock; a new reviewer slot takes it alone (assignment_pairs_due).
    PERFORM pg_advisory_xact_lock_shared({LOCK_KEY}, l.project_id) FROM (
        SELECT DISTINCT a.project_id FROM added x JOIN assignments a ON a.id = x.assignment_id
        WHERE NOT a.resolver ORDER BY a.project_id
    ) l;
    -- Lock the pairs' rows (in id order), then count in a new statement: its snapshot sees
    -- what another reviewer's answer committed while this one waited (READ COMMITTED).
    INSERT INTO pair_answers (pair_id, project_id)
    SELECT DISTINCT x.pair_id, p.project_id FROM added x
    JOIN assignments a ON a.id = x.assignment_id JOIN pairs p ON p.id = x.pair_id
    WHERE NOT a.resolver ORDER BY x.pair_id
    ON CONFLICT (pair_id) DO NOTHING;
    PERFORM 1 FROM pair_answers WHERE pair_id IN ({_ANSWERED}) ORDER BY pair_id FOR UPDATE;
    UPDATE pair_answers p SET ({_COLUMNS}) = ({_values("p.pair_id", "p.project_id")})
    WHERE p.pair_id IN ({_ANSWERED});
    RETURN NULL;
END $$""",
    """CREATE TRIGGER decision_events_current AFTER INSERT ON decision_events
REFERENCING NEW TABLE AS added FOR EACH STATEMENT EXECUTE FUNCTION decision_events_current()""",
    # New reviewer slots add to the rows of pairs already answered. The project's lock, alone,
    # waits for answers in flight and holds new ones until this commits: an answer creating a
    # pair's row concurrently would otherwise miss these slots, and they its row.
    f"""CREATE OR REPLACE FUNCTION assignment_pairs_due() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    PERFORM pg_advisory_xact_lock({LOCK_KEY}, a.project_id)
    FROM assignments a WHERE a.id IN (SELECT DISTINCT assignment_id FROM added);
    UPDATE pair_answers p SET due = p.due + n.slots
    FROM (
        SELECT x.pair_id, count(*) AS slots FROM added x
        JOIN pair_answers q ON q.pair_id = x.pair_id
        JOIN assignments a ON a.id = x.assignment_id
        WHERE NOT a.resolver GROUP BY x.pair_id
    ) n
    WHERE p.pair_id = n.pair_id;
    RETURN NULL;
END $$""",
    """CREATE TRIGGER assignment_pairs_due AFTER INSERT ON assignment_pairs
REFERENCING NEW TABLE AS added FOR EACH STATEMENT EXECUTE FUNCTION assignment_pairs_due()""",
]
#: The statements creating the triggers that keep :class:`AnswerState` and
#: :class:`PairAnswers`, per dialect (the migration holds its own copy).
TRIGGERS = {"sqlite": _SQLITE, "postgresql": _POSTGRESQL}


@event.listens_for(db.Model.metadata, "after_create")
def _create_triggers(_metadata, connection, tables=(), **_kw) -> None:
    """After every table exists (the triggers name four of them), as ``create_all`` ends."""
    if PairAnswers.__table__ not in tables:
        return
    for statement in TRIGGERS.get(connection.dialect.name, []):
        connection.execute(DDL(statement))
