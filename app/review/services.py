"""Workers' operations: read a page of an assignment, preview its costs.

Revealing a cell is :func:`app.review.reveal.reveal_cell` (re-exported here): the only function
that changes a budget-bearing state. It charges the cost computed by the same core function
as :func:`page_costs` previews with.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction

from sqlalchemy import func, select
from sqlalchemy.orm import selectinload

from app.core.disclosure import Level
from app.core.kapr import next_costs
from app.extensions import db
from app.models import Assignment, AssignmentPair, CellState, Pair, Project
from app.review.grid import (
    SIDE_NAMES,
    Attribute,
    PairState,
    project_schema,
    source_indexes,
    stand_in_indexes,
)
from app.review.reveal import (
    BudgetExceeded,
    NothingToReveal,
    NotInAssignment,
    RevealRefused,
    RevealResult,
    StaleView,
    reveal_cell,
)


@dataclass
class Context:
    """What every computation over one assignment needs."""

    assignment: Assignment
    project: Project
    attributes: list[Attribute]
    n_rows: int

    @classmethod
    def of(cls, assignment: Assignment) -> Context:
        """The context of ``assignment``; its KAPR's N counts the real rows only (a synthetic
        check's rows are priced at the same scale, docs/quality.md)."""
        project = assignment.project
        attributes = list(project_schema(project.id, project.created_at).attributes)
        real = _pair_count(assignment.id) - assignment.synthetic_pairs
        return cls(assignment, project, attributes, 2 * real)

    @property
    def budget(self) -> Fraction:
        return Fraction(repr(self.assignment.budget))

    @property
    def kapr(self) -> Fraction:
        """The worker's meter, which the budget bounds: the real KAPR and the checks' part."""
        return meter(self.assignment.kapr_exact, self.assignment.checks_kapr_exact)

    def indexes(self, pair: Pair):
        """The rows' anonymity-set indexes: one object when both come from one source; a
        synthetic check's (a pair of the checks project) stand-ins of the real ones."""
        find = source_indexes if pair.project_id == self.project.id else stand_in_indexes
        return find(
            self.project.id,
            self.project.records_version,
            (pair.record_a.source_id, pair.record_b.source_id),
            self.attributes,
        )

    def scale_args(self) -> dict:
        return {
            "kappa": self.project.kappa,
            "n_rows": self.n_rows,
            "n_attributes": len(self.attributes),
            "model": self.project.evidence_model,
        }


def meter(kapr_exact: str, checks_kapr_exact: str | None) -> Fraction:
    """The worker's KAPR meter from an assignment's real KAPR and its checks' part."""
    return Fraction(kapr_exact) + Fraction(checks_kapr_exact or "0")


def pair_states(ctx: Context, pairs: list[Pair]) -> list[PairState]:
    """Build the display state of ``pairs`` from records and the stored cell levels."""
    return _states(ctx, pairs, _cells(ctx, [p.id for p in pairs]))


def _cells(ctx: Context, pair_ids: list[int]) -> list[CellState]:
    if not pair_ids:
        return []
    return db.session.scalars(
        select(CellState).where(
            CellState.assignment_id == ctx.assignment.id, CellState.pair_id.in_(pair_ids)
        )
    ).all()


def _states(ctx: Context, pairs: list[Pair], cells: list[CellState]) -> list[PairState]:
    names = {a.id: a.name for a in ctx.attributes}
    levels: dict[int, dict] = {p.id: {} for p in pairs}
    for cell in cells:
        levels[cell.pair_id][cell.row, names[cell.attribute_id]] = Level(cell.level)
    return [
        PairState(p.id, ctx.attributes, (p.record_a.values, p.record_b.values), levels[p.id])
        for p in pairs
    ]


def page_costs(ctx: Context, pairs: list[Pair], states: list[PairState]) -> dict:
    """The KAPR cost of every cell's next reveal: ``(pair_id, row, attribute) -> Fraction``.

    Computed by the same core function that :func:`reveal_cell` charges with.
    """
    costs, scale_args, indexes = {}, ctx.scale_args(), {}
    for pair, state in zip(pairs, states, strict=True):
        sources = (pair.record_a.source_id, pair.record_b.source_id)
        if sources not in indexes:
            indexes[sources] = ctx.indexes(pair)
        costs.update(state_costs(state, indexes[sources], scale_args))
    return costs


def state_costs(state: PairState, indexes, scale_args: dict, rows=(0, 1)) -> dict:
    """The next-reveal cost of each cell of one pair (of its ``rows``), keyed like
    :func:`page_costs`."""

    def next_evidence(_n, side, attribute):
        row = SIDE_NAMES.index(side)
        return state.next_evidence(row, attribute) if row in rows else None

    found = next_costs([state.pair_view()], next_evidence, *indexes, **scale_args)
    return {
        (state.pair_id, SIDE_NAMES.index(side), attribute): cost
        for (_n, side, attribute), cost in found.items()
    }


def _pair_count(assignment_id: int) -> int:
    return db.session.scalar(
        select(func.count())
        .select_from(AssignmentPair)
        .where(AssignmentPair.assignment_id == assignment_id)
    )


def page_of(ctx: Context, page: int) -> tuple[list[Pair], int]:
    """The pairs on 1-based ``page`` and the number of pages."""
    size = ctx.project.page_size
    pages = max(1, math.ceil(ctx.n_rows / 2 / size))
    if not 1 <= page <= pages:
        raise NotInAssignment(f"page {page} does not exist (1 to {pages})")
    pairs = db.session.scalars(
        select(Pair)
        .join(AssignmentPair, AssignmentPair.pair_id == Pair.id)
        .where(AssignmentPair.assignment_id == ctx.assignment.id)
        .order_by(AssignmentPair.position)
        .offset((page - 1) * size)
        .limit(size)
        .options(selectinload(Pair.record_a), selectinload(Pair.record_b))
    ).all()
    return pairs, pages


__all__ = [
    "BudgetExceeded",
    "Context",
    "NotInAssignment",
    "NothingToReveal",
    "RevealRefused",
    "StaleView",
    "RevealResult",
    "page_costs",
    "page_of",
    "pair_states",
    "reveal_cell",
    "state_costs",
]
