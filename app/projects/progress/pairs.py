"""A project's pairs for its manager, page by page: ids, scores, rule, decision, provenance.

Filters: ``purpose``, ``round``, ``status`` (:data:`~app.projects.progress.finals.STATUSES`)
and one ``pair``. Pages are read in pair-id order through the index on
``(project_id, round, purpose, id)``: ``page=N`` skips ``(N-1)·per_page`` index entries, and
``after=<pair id>`` (the ``next_after`` of the previous page) starts past a pair id without
skipping anything (keyset paging, as fast on page 10,000 as on page 1). Decisions come from
one SQL query over the page (:mod:`app.projects.progress.finals`), never a Python pass over
the project.
"""

from __future__ import annotations

from dataclasses import dataclass

from sqlalchemy import func, select

from app.extensions import db
from app.models import Pair, Project, Purpose
from app.projects.progress.finals import STATUSES, final_columns, with_records

__all__ = ["MAX_PER_PAGE", "PairFilter", "PairPage", "ListingError", "list_pairs"]

MAX_PER_PAGE = 1000


class ListingError(ValueError):
    """A filter or page parameter is invalid."""


@dataclass(frozen=True)
class PairFilter:
    """Which pairs to list (``None``: any)."""

    purpose: str | None = None
    round: int | None = None
    status: str | None = None
    pair: int | None = None

    def __post_init__(self) -> None:
        if self.purpose is not None and self.purpose not in set(Purpose):
            raise ListingError(f"'purpose' must be one of {', '.join(p.value for p in Purpose)}")
        if self.status is not None and self.status not in STATUSES:
            raise ListingError(f"'status' must be one of {', '.join(STATUSES)}")


@dataclass(frozen=True)
class PairPage:
    pairs: list[dict]
    page: int
    per_page: int
    total: int
    next_after: int | None


def _where(project: Project, filters: PairFilter) -> list:
    conditions = [Pair.project_id == project.id]
    if filters.purpose is not None:
        conditions.append(Pair.purpose == filters.purpose)
    if filters.round is not None:
        conditions.append(Pair.round == filters.round)
    if filters.pair is not None:
        conditions.append(Pair.id == filters.pair)
    return conditions


def list_pairs(
    project: Project,
    filters: PairFilter = PairFilter(),  # noqa: B008 (frozen, never mutated)
    *,
    page: int = 1,
    per_page: int = 100,
    after: int | None = None,
) -> PairPage:
    """One page of the project's pairs matching ``filters`` (see the module docstring)."""
    if not 1 <= per_page <= MAX_PER_PAGE:
        raise ListingError(f"'per_page' must be from 1 to {MAX_PER_PAGE}")
    finals = final_columns(project.id)
    where = _where(project, filters)
    if filters.status is not None:
        where.append(finals.status(filters.status, project.id))
        base = select(Pair.id).select_from(finals.joined)
    else:
        base = select(Pair.id)
    total = db.session.scalar(select(func.count()).select_from(base.where(*where).subquery()))
    query = base.where(*where).order_by(Pair.id).limit(per_page)
    if after is not None:
        query = query.where(Pair.id > after)
    else:
        query = query.offset((page - 1) * per_page)
    ids = list(db.session.scalars(query))
    rows = _rows(project, finals, ids)
    next_after = ids[-1] if len(ids) == per_page else None
    return PairPage(rows, page if after is None else 0, per_page, total or 0, next_after)


def _rows(project: Project, finals, ids: list[int]) -> list[dict]:
    if not ids:
        return []
    query = with_records(
        finals.query(
            project.id, Pair.id, Pair.purpose, Pair.round, Pair.match_probability,
            Pair.match_weight, Pair.rule.label("match_key"), Pair.model_decision,
            finals.decision.label("decision"), finals.decided_by.label("decided_by"),
            finals.answers.label("answers"),
        ).where(Pair.id.in_(ids))
    )  # fmt: skip
    return [dict(row._mapping) for row in db.session.execute(query)]
