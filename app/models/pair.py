"""Candidate pairs of records to be reviewed."""

from __future__ import annotations

from sqlalchemy import CheckConstraint, ForeignKey, String, UniqueConstraint
from sqlalchemy.orm import Mapped, mapped_column, relationship

from app.extensions import db


class Pair(db.Model):
    __tablename__ = "pairs"
    __table_args__ = (
        UniqueConstraint("project_id", "record_a_id", "record_b_id"),
        CheckConstraint("record_a_id <> record_b_id", name="distinct_records"),
    )

    id: Mapped[int] = mapped_column(primary_key=True)
    project_id: Mapped[int] = mapped_column(
        ForeignKey("projects.id", ondelete="CASCADE"), index=True
    )
    record_a_id: Mapped[int] = mapped_column(ForeignKey("records.id", ondelete="CASCADE"))
    record_b_id: Mapped[int] = mapped_column(ForeignKey("records.id", ondelete="CASCADE"))
    # The block (pair-file GroupID) and the blocking rule that produced the pair.
    block: Mapped[str | None] = mapped_column(String(100))
    rule: Mapped[str | None] = mapped_column(String(200))

    record_a = relationship("Record", foreign_keys=[record_a_id])
    record_b = relationship("Record", foreign_keys=[record_b_id])

    def record(self, row: int):
        return self.record_a if row == 0 else self.record_b
