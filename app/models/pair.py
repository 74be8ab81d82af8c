"""Candidate pairs of records: to be reviewed, or decided by a linker's model."""

from __future__ import annotations

import enum

from sqlalchemy import CheckConstraint, ForeignKey, Index, String, UniqueConstraint
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


class Pair(db.Model):
    __tablename__ = "pairs"
    __table_args__ = (
        # A pair file may list one record pair several times (under different PairIDs), so
        # the pair's own id from the file is part of what makes it unique.
        UniqueConstraint("project_id", "record_a_id", "record_b_id", "external_id"),
        CheckConstraint("record_a_id <> record_b_id", name="distinct_records"),
        CheckConstraint(
            "purpose IN ('band', 'calibration', 'model', 'blocking', 'pairfile')",
            name="purpose_known",
        ),
        CheckConstraint(
            "model_decision IS NULL OR model_decision IN ('match', 'non_match')",
            name="model_decision_known",
        ),
        CheckConstraint("round >= 1", name="round_positive"),
        # Listings and assignments read one round and purpose of a project in id order.
        Index("ix_pairs_project_round_purpose", "project_id", "round", "purpose", "id"),
    )

    id: Mapped[int] = mapped_column(primary_key=True)
    # Its own index although the unique constraint and the round/purpose index lead with it:
    # on SQLite an index on (project_id) ends with the rowid, so a project's pairs by id (the
    # listing's keyset pages, the exports) are read in order instead of sorted whole.
    project_id: Mapped[int] = mapped_column(
        ForeignKey("projects.id", ondelete="CASCADE"), index=True
    )
    record_a_id: Mapped[int] = mapped_column(ForeignKey("records.id", ondelete="CASCADE"))
    record_b_id: Mapped[int] = mapped_column(ForeignKey("records.id", ondelete="CASCADE"))
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

    record_a = relationship("Record", foreign_keys=[record_a_id])
    record_b = relationship("Record", foreign_keys=[record_b_id])

    def record(self, row: int):
        return self.record_a if row == 0 else self.record_b
