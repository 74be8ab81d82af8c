"""Candidate pairs of records: to be reviewed, or decided by a linker's model."""

from __future__ import annotations

import enum
from collections.abc import Iterable

from sqlalchemy import CheckConstraint, Index, String, func, select, text
from sqlalchemy.orm import Mapped, mapped_column, relationship

from app.extensions import db


class Purpose(enum.StrEnum):
    """Why a pair is in the project (``docs/triage.md``).

    ``band``: its score fell between the triage thresholds, so people review it;
    ``calibration``: drawn (seeded, stratified by match weight over the whole score range) to
    be reviewed so the linker's labels are unbiased; ``model``: the linker's score decides it
    and nobody reviews it; ``blocking``: made by the application's own blocking rules;
    ``pairfile``: read from a MINDFIRL pair file.
    """

    BAND = "band"
    CALIBRATION = "calibration"
    MODEL = "model"
    BLOCKING = "blocking"
    PAIRFILE = "pairfile"


#: The purposes of pairs that reviewers get: every one but ``model``.
REVIEWED = (Purpose.BAND, Purpose.CALIBRATION, Purpose.BLOCKING, Purpose.PAIRFILE)


class ModelDecision(enum.StrEnum):
    """The linker's decision for a pair its score puts outside the triage band."""

    MATCH = "match"
    NON_MATCH = "non_match"


#: The pairs the unique index holds: every one but the model's.
_REVIEWED = "purpose <> 'model'"


def one_of(column: str, values) -> str:
    """SQL: ``column`` equals one of ``values``, as a chain of ``=`` joined by ``OR``.

    Not ``column IN (…)``: SQLite builds the list anew for every row it checks, even in a
    statement of many rows (1.2 µs a row; ~12 s of a 10M-pair import for one such check).
    """
    return "(" + " OR ".join(f"{column} = '{value}'" for value in values) + ")"


class Pair(db.Model):
    __tablename__ = "pairs"
    __table_args__ = (
        # A pair file may list one record pair several times (under different PairIDs), so
        # the pair's own id from the file is part of what makes it unique. The index holds the
        # pairs people review; the model's pairs (nine in ten of a scored import, written in
        # bulk) are kept unique by the import, which drops repeats and the pairs the project
        # has (``app.projects.triage.scored.resolve_pairs``): indexing them cost a 10M-pair
        # import on SQLite ~29 s, and nothing looks them up by record.
        Index(
            "uq_pairs_reviewed",
            "project_id",
            "record_a_id",
            "record_b_id",
            "external_id",
            unique=True,
            sqlite_where=text(_REVIEWED),
            postgresql_where=text(_REVIEWED),
        ),
        CheckConstraint("record_a_id <> record_b_id", name="distinct_records"),
        CheckConstraint(one_of("purpose", Purpose), name="purpose_known"),
        CheckConstraint(
            f"model_decision IS NULL OR {one_of('model_decision', ModelDecision)}",
            name="model_decision_known",
        ),
        CheckConstraint("round >= 1", name="round_positive"),
        # Listings and assignments read one round and purpose of a project in id order.
        Index("ix_pairs_project_round_purpose", "project_id", "round", "purpose", "id"),
    )

    id: Mapped[int] = mapped_column(primary_key=True)
    # No foreign keys: the pairs table is written millions of rows at a time, and SQLite
    # checks a key row by row (the three keys were most of a 10M-pair import: 137 s of rows →
    # 41 s without them, the model pairs' index and IN checks; PostgreSQL's COPY of 1M pairs
    # 37.8 s → 8.9 s without the records' keys). Every path that writes pairs takes the
    # project from the database and resolves the ids among its own records first (which a key
    # to ``records`` never checked); ``delete_project`` deletes a project's pairs, and records
    # go only with their project.
    #
    # Nor has any table a key to ``pairs``: its cascade looked up every deleted pair (a 40k-
    # pair project took 9.2 s to delete); ``delete_project`` deletes a table at a time.
    #
    # ``project_id`` has its own index although the unique and round/purpose indexes lead
    # with it: on SQLite an index on (project_id) ends with the rowid, so a project's pairs by
    # id (the listing's keyset pages, the exports) are read in order instead of sorted whole.
    project_id: Mapped[int] = mapped_column(index=True)
    record_a_id: Mapped[int]
    record_b_id: Mapped[int]
    # The pair's id in its pair file (``PairID``); "" for pairs made by blocking or the API.
    external_id: Mapped[str] = mapped_column(String(100), default="", server_default="")
    # The block (pair-file GroupID) and the rule that produced the pair: a blocking rule of
    # ours, or the linker's ``match_key`` (Splink's blocking rule number).
    block: Mapped[str | None] = mapped_column(String(100))
    rule: Mapped[str | None] = mapped_column(String(200))
    # The linker's scores, as imported (None for pairs nobody scored).
    match_probability: Mapped[float | None]
    match_weight: Mapped[float | None]
    purpose: Mapped[str] = mapped_column(
        String(12), default=Purpose.BLOCKING.value, server_default="blocking"
    )
    # The numbered batch the pair came in (``app.projects.triage.rounds``).
    round: Mapped[int] = mapped_column(default=1, server_default="1")
    # What the linker's score decided by the triage thresholds (outside the band only). A
    # reviewed pair keeps it as the fallback of the final linkage until people decide it.
    model_decision: Mapped[str | None] = mapped_column(String(10))

    record_a = relationship(
        "Record", primaryjoin="foreign(Pair.record_a_id) == Record.id", viewonly=True
    )
    record_b = relationship(
        "Record", primaryjoin="foreign(Pair.record_b_id) == Record.id", viewonly=True
    )

    def record(self, row: int):
        return self.record_a if row == 0 else self.record_b


def pair_rounds(project_id: int) -> list[int]:
    """The numbers of the project's rounds that hold pairs, ascending: one seek each in
    ``ix_pairs_project_round_purpose`` (``min(round) > n``, recursively), no pair read."""
    rounds = (
        select(func.min(Pair.round).label("n"))
        .where(Pair.project_id == project_id)
        .cte("rounds", recursive=True)
    )
    following = (
        select(func.min(Pair.round))
        .where(Pair.project_id == project_id, Pair.round > rounds.c.n)
        .scalar_subquery()
    )
    rounds = rounds.union_all(select(following).where(rounds.c.n.is_not(None)))
    return [n for n in db.session.scalars(select(rounds.c.n)) if n is not None]


def reviewed_pairs(project_id: int, purposes: Iterable[str] | None = None) -> tuple:
    """Conditions on :class:`Pair` for the project's pairs to review (of ``purposes``, else
    every purpose but the model's) that SQLite reads round by round and purpose by purpose
    through ``ix_pairs_project_round_purpose``: ``project_id = ?`` and ``purpose IN (…)`` alone
    make it scan the project's whole index, its ten million model pairs with the million to
    review (SQLite has no statistics to skip them). In pair order: ``.order_by(BY_ID)``."""
    purposes = list(purposes) if purposes is not None else [p.value for p in REVIEWED]
    return (
        Pair.project_id == project_id,
        Pair.round.in_(pair_rounds(project_id)),
        Pair.purpose.in_(purposes),
    )


#: ``ORDER BY`` pair id for a query on :func:`reviewed_pairs`. An expression, not the column:
#: with ``ORDER BY id`` SQLite walks every pair of the project through ``ix_pairs_project_id``
#: to skip a sort (ten million model pairs read to find a million to review); with the
#: expression it reads the pairs to review through ``ix_pairs_project_round_purpose`` and
#: sorts them (a million rows: within the noise of reading them). PostgreSQL plans by its
#: statistics either way.
BY_ID = Pair.id + 0
