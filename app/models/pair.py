"""Candidate pairs of records to be reviewed."""

from __future__ import annotations

from sqlalchemy import CheckConstraint, ForeignKey, String, UniqueConstraint
from sqlalchemy.orm import Mapped, mapped_column, relationship

from app.extensions import db


class Pair(db.Model):
    __tablename__ = "pairs"
    __table_args__ = (
        # A pair file may list one record pair several times (under different PairIDs), so
        # the pair's own id from the file is part of what makes it unique.
        UniqueConstraint("project_id", "record_a_id", "record_b_id", "external_id"),
        CheckConstraint("record_a_id <> record_b_id", name="distinct_records"),
    )

    id: Mapped[int] = mapped_column(primary_key=True)
    project_id: Mapped[int] = mapped_column(
        ForeignKey("projects.id", ondelete="CASCADE"), index=True
    )
    record_a_id: Mapped[int] = mapped_column(ForeignKey("records.id", ondelete="CASCADE"))
    record_b_id: Mapped[int] = mapped_column(ForeignKey("records.id", ondelete="CASCADE"))
    # The pair's id in its pair file (``PairID``); "" for pairs made by blocking or the API.
    external_id: Mapped[str] = mapped_column(String(100), default="", server_default="")
    # The block (pair-file GroupID) and the blocking rule that produced the pair.
    block: Mapped[str | None] = mapped_column(String(100))
    rule: Mapped[str | None] = mapped_column(String(200))

    record_a = relationship("Record", foreign_keys=[record_a_id])
    record_b = relationship("Record", foreign_keys=[record_b_id])

    def record(self, row: int):
        return self.record_a if row == 0 else self.record_b
