"""Records: identifying values under a random pseudonym, sensitive values in the vault."""

from __future__ import annotations

import secrets

from sqlalchemy import JSON, ForeignKey, Index, LargeBinary, String, UniqueConstraint
from sqlalchemy.orm import Mapped, mapped_column, relationship

from app.extensions import db
from app.models.base import no_statistics, uncompressed


def new_pseudonym() -> str:
    """A random pseudonym: 128 bits, unrelated to any value of the record."""
    return secrets.token_hex(16)


class Record(db.Model):
    """A record's identifying attributes, keyed by a random pseudonym.

    ``values`` maps attribute name to the *normalised* value (``None`` when missing).
    ``position`` numbers the records of one source from 0; the anonymity-set index uses it.
    ``characters`` is the record's characters over the project's identifying attributes, what
    the characters meter counts (:func:`app.core.disclosure.value_characters`): counted once
    when the record is stored (:mod:`app.projects.lifecycle.bulk`), so assigning a million
    pairs sums two stored integers per pair instead of reading every record's values, and 0
    once close-out destroys the values.
    """

    __tablename__ = "records"
    __table_args__ = (
        UniqueConstraint("source_id", "external_id"),
        UniqueConstraint("source_id", "position"),
        Index("ix_records_project_source", "project_id", "source_id"),
    )

    id: Mapped[int] = mapped_column(primary_key=True)
    project_id: Mapped[int] = mapped_column(ForeignKey("projects.id", ondelete="CASCADE"))
    source_id: Mapped[int] = mapped_column(ForeignKey("sources.id", ondelete="CASCADE"))
    external_id: Mapped[str] = mapped_column(String(100))
    pseudonym: Mapped[str] = mapped_column(String(32), unique=True, default=new_pseudonym)
    position: Mapped[int]
    values: Mapped[dict] = mapped_column(JSON)
    characters: Mapped[int] = mapped_column(default=0, server_default="0")

    source = relationship("Source")


class SourceIndex(db.Model):
    """One source's anonymity-set index as built from its records (``AnonymityIndex.dump``).

    Written when the records are imported, so that the first pricing in a process loads it
    instead of normalising and ranking every record's values again. It holds the normalised
    identifying values, like ``records.values``: deleted with the source, and by close-out.
    ``records_version`` is the project's when it was built; another version is never read.
    """

    __tablename__ = "source_indexes"

    source_id: Mapped[int] = mapped_column(
        ForeignKey("sources.id", ondelete="CASCADE"), primary_key=True
    )
    project_id: Mapped[int] = mapped_column(
        ForeignKey("projects.id", ondelete="CASCADE"), index=True
    )
    records_version: Mapped[int]
    data: Mapped[bytes] = mapped_column(LargeBinary)


class VaultRecord(db.Model):
    """Sensitive attributes of one record, in the separate ``vault`` bind.

    Keyed by the pseudonym only; there is no foreign key across databases, so deleting a
    project deletes its vault rows explicitly (``projects.lifecycle.delete.delete_project``).
    Only the de-identified export reads this table.
    """

    __bind_key__ = "vault"
    __tablename__ = "vault_records"

    pseudonym: Mapped[str] = mapped_column(String(32), primary_key=True)
    project_id: Mapped[int] = mapped_column(index=True)
    values: Mapped[dict] = mapped_column(JSON)


no_statistics(Record, "values")
no_statistics(SourceIndex, "data")
uncompressed(SourceIndex, "data")
no_statistics(VaultRecord, "values")
