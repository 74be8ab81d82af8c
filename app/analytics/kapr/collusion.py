"""What a project's workers saw together, as if they colluded, and its KAPR.

:func:`pooled_state` is the one loader of the pooled ("colluding workers") disclosure state, used by
the reports and the belief audit alike: every pair shown to at least one of the project's
assignments, each cell at the most any assignment showed of it. Levels are nested (a partial display
discloses a subset of the full one), so the highest level is the union of what the workers
disclosed.

:func:`collusion_kapr` scores that pooled display with the same core functions the reveal path
charges with (:func:`app.core.kapr.score.assess_pair`, the anonymity-set index of
:func:`app.review.grid.indexes.source_index`): N = two rows per pooled pair, D = the project's
identifying attributes. It is a KAPR of one display, so it compares with each assignment's
KAPR; a sum of assignments' KAPRs (each normalised by its own N) has no such meaning. Every
pooled pair's term is at least that pair's term in any one assignment (KAPR is monotone in
disclosure), but N is the pooled number of rows, so when workers saw different pairs the
pooled score can be below the largest single assignment's; the report shows both.
Recognising one record across different pairs is not modelled: the display never says that
two rows are the same record.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from sqlalchemy import func, select
from sqlalchemy.orm import selectinload

from app.core.disclosure import AttributeType, Level
from app.core.kapr import KaprScore, PairRisk, assess_pair, kapr_score
from app.extensions import db
from app.models import Assignment, AssignmentPair, CellState, Pair, Project
from app.projects.progress.counts import assigned_pairs
from app.review.grid import Attribute, PairState, source_index

__all__ = ["PooledState", "assess_states", "collusion_kapr", "pooled_state", "score_states"]

_RANK = {Level.MASKED: 0, Level.PARTIAL: 1, Level.FULL: 2}


@dataclass(frozen=True)
class PooledState:
    """The pooled display: its pairs (each once) and their states at the highest level.

    ``n_pairs`` counts every pooled pair; ``pairs`` and ``states`` hold them all, or only those
    with a disclosed cell when loaded with ``disclosed_only`` (a pair showing nothing adds 0
    to KAPR, so scoring needs only their number).
    """

    project: Project
    attributes: list[Attribute]
    assignment_ids: list[int]
    pairs: list[Pair]
    states: list[PairState]
    n_pairs: int


def attributes_of(project: Project) -> list[Attribute]:
    """The project's identifying attributes as the disclosure state takes them."""
    return [Attribute(a.id, a.name, AttributeType(a.kind)) for a in project.identifying]


def pooled_state(
    project: Project, assignment_ids: Sequence[int] | None = None, *, disclosed_only: bool = False
) -> PooledState:
    """Pool the assignments ``assignment_ids`` (default: all of the project's, resolvers too).

    Pairs come in assignment then position order, each once; a cell's level is the highest
    stored for it by any of the assignments. ``disclosed_only`` loads only the pairs with a
    cell above masked (see :class:`PooledState`).
    """
    if assignment_ids is None:
        assignment_ids = db.session.scalars(
            select(Assignment.id).where(Assignment.project_id == project.id).order_by(Assignment.id)
        ).all()
    ids = list(assignment_ids)
    attributes = attributes_of(project)
    if not ids:
        return PooledState(project, attributes, [], [], [], 0)
    levels = _highest_levels(attributes, ids)
    # The project's own pairs: a synthetic check (its checks project's pair) is nobody, and
    # KAPR's N counts real rows only (docs/quality.md).
    listed = (
        select(AssignmentPair.pair_id)
        .join(Pair, Pair.id == AssignmentPair.pair_id)
        .where(AssignmentPair.assignment_id.in_(ids), Pair.project_id == project.id)
    )
    if disclosed_only:
        # Only the pairs showing something are loaded; the others are counted by the database
        # (a million assigned pairs are not listed in Python to score a few hundred).
        n_pairs = assigned_pairs(ids) - _synthetic_pairs(project, ids)
        disclosed = [pair_id for pair_id, cells in levels.items() if cells]
        listed = listed.where(AssignmentPair.pair_id.in_(disclosed))
    order_by = (AssignmentPair.assignment_id, AssignmentPair.position)
    order = []
    if not disclosed_only or disclosed:
        order = list(dict.fromkeys(db.session.scalars(listed.order_by(*order_by))))
    if not disclosed_only:
        n_pairs = len(order)
    found = db.session.scalars(
        select(Pair)
        .where(Pair.id.in_(order))
        .options(selectinload(Pair.record_a), selectinload(Pair.record_b))
    ).all()
    by_id = {p.id: p for p in found}
    pairs = [by_id[i] for i in order]
    states = [
        PairState(p.id, attributes, (p.record_a.values, p.record_b.values), levels.get(p.id, {}))
        for p in pairs
    ]
    return PooledState(project, attributes, ids, pairs, states, n_pairs)


def _synthetic_pairs(project: Project, assignment_ids: list[int]) -> int:
    """How many distinct synthetic checks (pairs of another project) the assignments hold:
    none without a query when none of them has any (``Assignment.synthetic_pairs``), where
    the join of every assigned pair was most of the progress page on PostgreSQL (0.12 of
    0.32 s at 200k pairs assigned)."""
    holding = select(func.count()).where(
        Assignment.id.in_(assignment_ids), Assignment.synthetic_pairs > 0
    )
    if not db.session.scalar(holding):
        return 0
    query = (
        select(func.count(AssignmentPair.pair_id.distinct()))
        .join(Pair, Pair.id == AssignmentPair.pair_id)
        .where(AssignmentPair.assignment_id.in_(assignment_ids), Pair.project_id != project.id)
    )
    return db.session.scalar(query) or 0


def _highest_levels(attributes: list[Attribute], assignment_ids: list[int]) -> dict[int, dict]:
    names = {a.id: a.name for a in attributes}
    levels: dict[int, dict] = {}
    cells = db.session.execute(
        select(CellState.pair_id, CellState.row, CellState.attribute_id, CellState.level).where(
            CellState.assignment_id.in_(assignment_ids)
        )
    )
    for pair_id, row, attribute_id, stored in cells:
        if attribute_id not in names:
            continue
        key, level = (row, names[attribute_id]), Level(stored)
        pair_levels = levels.setdefault(pair_id, {})
        if _RANK[level] > _RANK[pair_levels.get(key, Level.MASKED)]:  # masked rows stay out
            pair_levels[key] = level
    return levels


def assess_states(project: Project, pairs: Sequence[Pair], states: Sequence[PairState]):
    """Each displayed pair's unscaled KAPR term and ``k_i`` (:class:`PairRisk`), in order."""
    model = project.evidence_model
    result: list[PairRisk] = []
    for pair, state in zip(pairs, states, strict=True):
        left = source_index(project, pair.record_a.source_id)
        same = pair.record_b.source_id == pair.record_a.source_id
        right = left if same else source_index(project, pair.record_b.source_id)
        view = state.pair_view()
        result.append(assess_pair(view.left, view.right, view.markers, left, right, model))
    return result


def score_states(
    project: Project,
    pairs: Sequence[Pair],
    states: Sequence[PairState],
    n_pairs: int | None = None,
) -> KaprScore | None:
    """The KAPR of a display of ``n_pairs`` pairs (default: ``len(pairs)``) of which ``pairs``
    in ``states`` are all that disclose something; ``None`` for an empty display."""
    n_pairs = len(pairs) if n_pairs is None else n_pairs
    if not n_pairs or not project.identifying:
        return None
    assessments = assess_states(project, pairs, states)
    return kapr_score(assessments, project.kappa, 2 * n_pairs, len(project.identifying))


def collusion_kapr(project: Project) -> KaprScore | None:
    """The KAPR of what all of ``project``'s workers saw together (``None``: no pair shown)."""
    pooled = pooled_state(project, disclosed_only=True)
    return score_states(project, pooled.pairs, pooled.states, pooled.n_pairs)
