"""Workers' operations: read a page of an assignment, reveal one cell.

``reveal_cell`` is the only function that changes a budget-bearing state. It locks the
assignment (``SELECT ... FOR UPDATE`` on PostgreSQL; on SQLite every transaction begins
``IMMEDIATE``, see ``app.database``), advances the *stored* level, charges the cost computed by
the same function as the hover preview, and refuses with :class:`BudgetExceeded` when the
budget would be passed, changing nothing.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction

from sqlalchemy import func, select
from sqlalchemy.orm import joinedload, selectinload

from app.core.attributes import AttributeType, Level
from app.core.kapr import next_costs, reveal_cost
from app.extensions import db
from app.models import Assignment, AssignmentPair, CellState, Pair, Project, RevealEvent, User
from app.review.risk import source_index
from app.review.state import SIDE_NAMES, Attribute, PairState


class RevealRefused(Exception):
    """A reveal that cannot be made; ``code`` is the HTTP status, ``error`` its name."""

    code = 409
    error = "refused"

    def __init__(self, message: str, **details):
        super().__init__(message)
        self.details = details


class BudgetExceeded(RevealRefused):
    error = "budget_exceeded"


class NothingToReveal(RevealRefused):
    error = "nothing_to_reveal"


class NotInAssignment(RevealRefused):
    code = 404
    error = "not_found"


@dataclass
class Context:
    """What every computation over one assignment needs."""

    assignment: Assignment
    project: Project
    attributes: list[Attribute]
    n_rows: int

    @classmethod
    def of(cls, assignment: Assignment) -> Context:
        project = assignment.project
        attributes = [Attribute(a.id, a.name, AttributeType(a.kind)) for a in project.identifying]
        return cls(assignment, project, attributes, 2 * _pair_count(assignment.id))

    @property
    def budget(self) -> Fraction:
        return Fraction(repr(self.assignment.budget))

    @property
    def kapr(self) -> Fraction:
        return Fraction(self.assignment.kapr_exact)

    def indexes(self, pair: Pair):
        """The rows' anonymity-set indexes: one object when both come from one source."""
        left = source_index(self.project, pair.record_a.source_id)
        if pair.record_b.source_id == pair.record_a.source_id:
            return left, left
        return left, source_index(self.project, pair.record_b.source_id)

    def scale_args(self) -> dict:
        return {
            "kappa": self.project.kappa,
            "n_rows": self.n_rows,
            "n_attributes": len(self.attributes),
            "model": self.project.evidence_model,
        }


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
    costs = {}
    for pair, state in zip(pairs, states, strict=True):
        left, right = ctx.indexes(pair)

        def next_evidence(_n, side, attribute, state=state):
            row = SIDE_NAMES.index(side)
            level = state.next_level(row, attribute)
            return None if level is None else state.evidence(row, attribute, level)

        found = next_costs([state.pair_view()], next_evidence, left, right, **ctx.scale_args())
        for (_n, side, attribute), cost in found.items():
            costs[pair.id, SIDE_NAMES.index(side), attribute] = cost
    return costs


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


@dataclass(frozen=True)
class RevealResult:
    assignment: Assignment
    pair: Pair
    state: PairState
    row: int
    attribute: str
    cost: Fraction
    kapr: Fraction
    context: Context | None = None  # reused by reveal_json instead of being rebuilt


def reveal_cell(
    assignment_id: int, pair_id: int, row: int, attribute: str, *, by: User
) -> RevealResult:
    """Advance one cell to its next level and charge its KAPR cost, or refuse.

    The caller commits. Raises :class:`RevealRefused` (and subclasses) with nothing changed.
    """
    assignment = _locked_assignment(assignment_id)
    if assignment is None or assignment.worker_id != by.id:
        raise NotInAssignment("no such assignment of yours")
    if row not in (0, 1):
        raise NotInAssignment("row must be 0 (record A) or 1 (record B)")
    link = db.session.get(AssignmentPair, (assignment.id, pair_id))
    if link is None:
        raise NotInAssignment("this pair is not in your assignment")
    ctx = Context.of(assignment)
    target = next((a for a in ctx.attributes if a.name == attribute), None)
    if target is None:
        raise NotInAssignment(f"no identifying attribute {attribute!r}")

    # The pair and both records in one query, and the pair's stored cells once: the
    # reveal is on the worker's hot path, and each lazy load is a round trip.
    pair = db.session.scalars(
        select(Pair)
        .where(Pair.id == pair_id)
        .options(joinedload(Pair.record_a), joinedload(Pair.record_b))
    ).one()
    cells = _cells(ctx, [pair.id])
    (state,) = _states(ctx, [pair], cells)
    level_from, level_to = state.level(row, attribute), state.next_level(row, attribute)
    if level_to is None:
        raise NothingToReveal("this cell shows everything it can already")
    left, right = ctx.indexes(pair)
    cost = reveal_cost(
        state.pair_view(),
        SIDE_NAMES[row],
        attribute,
        state.evidence(row, attribute, level_to),
        left,
        right,
        **ctx.scale_args(),
    )
    before = ctx.kapr
    after = before + cost
    if after > ctx.budget:
        raise BudgetExceeded(
            "revealing this cell would take your privacy risk over your budget",
            next_cost=float(cost),
            kapr=float(before),
            budget=assignment.budget,
        )
    stored = next((c for c in cells if c.row == row and c.attribute_id == target.id), None)
    _store_level(assignment.id, pair.id, row, target.id, level_to, stored)
    state.levels[row, attribute] = level_to
    gained = state.view(row, attribute).disclosed - state.view(row, attribute, level_from).disclosed
    assignment.kapr_exact, assignment.kapr = str(after), float(after)
    assignment.chars_disclosed += gained
    assignment.version += 1
    db.session.add(
        RevealEvent(
            assignment_id=assignment.id,
            pair_id=pair.id,
            row=row,
            attribute_id=target.id,
            user_id=by.id,
            level_from=level_from.value,
            level_to=level_to.value,
            cost_exact=str(cost),
            kapr_before_exact=str(before),
            kapr_after_exact=str(after),
            kapr_after=float(after),
        )
    )
    db.session.flush()
    return RevealResult(assignment, pair, state, row, attribute, cost, after, ctx)


def _locked_assignment(assignment_id: int) -> Assignment | None:
    query = select(Assignment).where(Assignment.id == assignment_id)
    if db.session.get_bind().dialect.name != "sqlite":
        query = query.with_for_update()
    return db.session.scalars(query.execution_options(populate_existing=True)).first()


def _store_level(
    assignment_id: int, pair_id: int, row: int, attribute_id: int, level: Level, cell=None
):
    """Write a cell's level; ``cell`` is its stored row when the caller has it loaded."""
    if cell is None:
        db.session.add(
            CellState(
                assignment_id=assignment_id,
                pair_id=pair_id,
                row=row,
                attribute_id=attribute_id,
                level=level.value,
            )
        )
    else:
        cell.level = level.value
