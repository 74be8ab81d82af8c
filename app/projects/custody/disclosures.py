"""Every disclosure of a record, read from the append-only reveal events (never a value).

A disclosure is one step of one cell of one record: a reveal event (``how="reveal"``), or a
cell an assignment opened at partial from its start (``how="start"``: attributes a manager
chose to start at partial, charged as the starting KAPR and stored as the cell's level, with
no event). A record is chosen by its source label and record id as uploaded, never by value.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterator
from dataclasses import dataclass, field

from sqlalchemy import and_, case, or_, select
from sqlalchemy.orm import aliased

from app.core.disclosure import Level
from app.extensions import db
from app.models import (
    Assignment,
    CellState,
    Pair,
    Project,
    ProjectAttribute,
    Record,
    RevealEvent,
    Source,
    User,
)

__all__ = [
    "COLUMNS",
    "Disclosure",
    "RecordDisclosures",
    "RecordNotFound",
    "highest_levels",
    "project_disclosures",
    "record_disclosures",
]

#: The columns of a disclosure in the downloads, in order.
COLUMNS = (
    "source", "record", "attribute", "level_from", "level", "chars", "worker",
    "assignment", "pair", "at", "how",
)  # fmt: skip


class RecordNotFound(LookupError):
    """No record of that source and id in the project."""


@dataclass(frozen=True)
class Disclosure:
    """One cell of one record shown at a higher level to one worker."""

    source: str
    record: str
    attribute: str
    level_from: str
    level: str
    chars: int | None  # characters it disclosed; None when not recorded (start, old reveals)
    worker: str
    assignment: int
    pair: int
    at: dt.datetime
    how: str  # reveal | start

    def row(self) -> list:
        return [
            self.source, self.record, self.attribute, self.level_from, self.level, self.chars,
            self.worker, self.assignment, self.pair, self.at.isoformat(), self.how,
        ]  # fmt: skip

    def as_json(self) -> dict:
        return dict(zip(COLUMNS, self.row(), strict=True))


@dataclass(frozen=True)
class RecordDisclosures:
    """A record's disclosures in time order and the highest level of each identifying
    attribute across all workers (``masked`` when never disclosed)."""

    source: str
    record: str
    disclosures: list[Disclosure]
    highest: dict[str, str] = field(default_factory=dict)

    def as_json(self) -> dict:
        return {
            "source": self.source,
            "record": self.record,
            "highest": self.highest,
            "disclosures": [d.as_json() for d in self.disclosures],
        }


def record_disclosures(project: Project, source: str, record: str) -> RecordDisclosures:
    """Every disclosure of record ``record`` of source ``source`` (its label, A or B, or
    the linker's dataset name it was imported under)."""
    found = db.session.execute(
        select(Record.id, Source.label)
        .join(Source, Source.id == Record.source_id)
        .where(
            Record.project_id == project.id,
            or_(Source.label == source, Source.dataset == source),
            Record.external_id == record,
        )
    ).first()
    if found is None:
        raise RecordNotFound(f"no record {record!r} in source {source!r} of this project")
    items = list(project_disclosures(project, record_id=found.id))
    highest = highest_levels(project, items).get((found.label, record), {})
    names = [a.name for a in project.identifying]
    return RecordDisclosures(
        found.label, record, items, {n: highest.get(n, Level.MASKED.value) for n in names}
    )


def highest_levels(project: Project, items) -> dict[tuple[str, str], dict[str, str]]:
    """``(source, record) → {attribute: highest level}`` over ``items`` (disclosed only)."""
    out: dict[tuple[str, str], dict[str, str]] = {}
    for d in items:
        levels = out.setdefault((d.source, d.record), {})
        now = levels.get(d.attribute)
        if now is None or Level(d.level).rank > Level(now).rank:
            levels[d.attribute] = d.level
    return out


def project_disclosures(project: Project, record_id: int | None = None) -> Iterator[Disclosure]:
    """The project's disclosures (of one record with ``record_id``), by time."""
    items = [*_reveals(project, record_id), *_starts(project, record_id)]
    items.sort(key=lambda d: (d.at, d.assignment, d.pair, d.attribute))
    return iter(items)


def _record_of_cell(row_column, pair=Pair):
    """The record a cell shows: record A on row 0, record B on row 1."""
    return case((row_column == 0, pair.record_a_id), else_=pair.record_b_id)


def _reveals(project: Project, record_id: int | None) -> Iterator[Disclosure]:
    record = aliased(Record)
    shown = _record_of_cell(RevealEvent.row)
    query = (
        select(
            Source.label, record.external_id, ProjectAttribute.name, RevealEvent.level_from,
            RevealEvent.level_to, RevealEvent.chars, User.username, RevealEvent.assignment_id,
            RevealEvent.pair_id, RevealEvent.at,
        )
        .select_from(RevealEvent)
        .join(Assignment, Assignment.id == RevealEvent.assignment_id)
        .join(Pair, Pair.id == RevealEvent.pair_id)
        .join(record, record.id == shown)
        .join(Source, Source.id == record.source_id)
        .join(User, User.id == RevealEvent.user_id)
        .join(ProjectAttribute, ProjectAttribute.id == RevealEvent.attribute_id)
        # the project's own pairs: a synthetic check's (its checks project's) shows nobody
        .where(Assignment.project_id == project.id, Pair.project_id == project.id)
        .order_by(RevealEvent.id)
    )  # fmt: skip
    if record_id is not None:
        query = query.where(_shows(RevealEvent.row, record_id))
    for row in db.session.execute(query):
        yield Disclosure(*row[:9], _aware(row[9]), "reveal")


def _shows(row_column, record_id: int):
    return or_(
        and_(row_column == 0, Pair.record_a_id == record_id),
        and_(row_column == 1, Pair.record_b_id == record_id),
    )


def _starts(project: Project, record_id: int | None) -> Iterator[Disclosure]:
    """Cells an assignment opened at partial from its start: a cell with a stored level
    that no reveal ever raised from masked (reveals store the cell's level as they go)."""
    from_masked = (
        select(RevealEvent.id)
        .where(
            RevealEvent.assignment_id == CellState.assignment_id,
            RevealEvent.pair_id == CellState.pair_id,
            RevealEvent.row == CellState.row,
            RevealEvent.attribute_id == CellState.attribute_id,
            RevealEvent.level_from == Level.MASKED.value,
        )
        .exists()
    )
    record = aliased(Record)
    query = (
        select(
            Source.label, record.external_id, ProjectAttribute.name, User.username,
            CellState.assignment_id, CellState.pair_id, Assignment.created_at,
        )
        .join(Assignment, Assignment.id == CellState.assignment_id)
        .join(Pair, Pair.id == CellState.pair_id)
        .join(record, record.id == _record_of_cell(CellState.row))
        .join(Source, Source.id == record.source_id)
        .join(User, User.id == Assignment.worker_id)
        .join(ProjectAttribute, ProjectAttribute.id == CellState.attribute_id)
        .where(Assignment.project_id == project.id, Pair.project_id == project.id, ~from_masked)
    )  # fmt: skip
    if record_id is not None:
        query = query.where(_shows(CellState.row, record_id))
    for label, external_id, name, worker, assignment_id, pair_id, at in db.session.execute(query):
        yield Disclosure(
            label, external_id, name, Level.MASKED.value, Level.PARTIAL.value, None,
            worker, assignment_id, pair_id, _aware(at), "start",
        )  # fmt: skip


def _aware(at: dt.datetime) -> dt.datetime:
    """SQLite returns naive datetimes for timezone-aware columns: they are UTC."""
    return at if at.tzinfo is not None else at.replace(tzinfo=dt.UTC)
