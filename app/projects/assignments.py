"""Give a worker a share of a project's pairs with a privacy budget."""

from __future__ import annotations

from collections.abc import Sequence
from fractions import Fraction

from sqlalchemy import select

from app.extensions import db
from app.models import Assignment, AssignmentPair, CellState, Pair, Project, Role, User


class AssignmentError(ValueError):
    """A user-facing reason an assignment cannot be made."""


def assign_pairs(
    project: Project,
    worker: User,
    budget: float,
    pair_ids: Sequence[int] | str = "all",
    start_partial: Sequence[str] = (),
) -> Assignment:
    """Create ``worker``'s assignment of ``pair_ids`` (or all pairs) in ``project``.

    The budget is a KAPR limit in [0, 1]. Cells of the ``start_partial`` attributes start at
    partial (where a partial level exists) and are charged as the starting KAPR, so the
    assignment is refused when that alone exceeds the budget. The caller commits.
    """
    if worker.role != Role.WORKER:
        raise AssignmentError(f"{worker.username!r} is not a worker")
    if isinstance(budget, bool) or not isinstance(budget, int | float) or not 0 <= budget <= 1:
        raise AssignmentError("the budget is a KAPR limit from 0 to 1")
    exists = db.session.scalar(
        select(Assignment.id).where(
            Assignment.project_id == project.id, Assignment.worker_id == worker.id
        )
    )
    if exists:
        raise AssignmentError(f"{worker.username!r} has an assignment in this project already")
    in_project = db.session.scalars(
        select(Pair.id).where(Pair.project_id == project.id).order_by(Pair.id)
    ).all()
    if pair_ids == "all":
        chosen = list(in_project)
    elif isinstance(pair_ids, str):
        raise AssignmentError("'pairs' must be \"all\" or a list of pair ids")
    else:
        known = set(in_project)
        unknown = [p for p in pair_ids if p not in known]
        if unknown:
            raise AssignmentError(f"pairs not in this project: {unknown[:10]}")
        chosen = list(dict.fromkeys(pair_ids))
    if not chosen:
        raise AssignmentError("an assignment needs at least one pair")
    identifying = {a.name: a for a in project.identifying}
    unknown = [name for name in start_partial if name not in identifying]
    if isinstance(start_partial, str) or unknown:
        raise AssignmentError(f"'start_partial' names no identifying attribute: {unknown}")
    assignment = Assignment(project_id=project.id, worker_id=worker.id, budget=float(budget))
    assignment.pairs = [AssignmentPair(pair_id=p, position=i) for i, p in enumerate(chosen)]
    db.session.add(assignment)
    db.session.flush()
    _open_start_cells(assignment, [identifying[n] for n in start_partial])
    return assignment


def _open_start_cells(assignment: Assignment, attributes) -> None:
    """Count the characters, pre-open ``attributes`` at partial and charge the start KAPR."""
    from app.core.attributes import Level
    from app.core.kapr import assess_pair, kapr_score
    from app.review.services import Context, pair_states

    ctx = Context.of(assignment)
    pairs = [link.pair for link in assignment.pairs]
    states = pair_states(ctx, pairs)
    assessments, disclosed, total = [], 0, 0
    for pair, state in zip(pairs, states, strict=True):
        for attribute in attributes:
            for row in (0, 1):
                if state.next_level(row, attribute.name) is Level.PARTIAL:
                    state.levels[row, attribute.name] = Level.PARTIAL
                    db.session.add(CellState(assignment_id=assignment.id, pair_id=pair.id,
                                             row=row, attribute_id=attribute.id,
                                             level=Level.PARTIAL.value))
        if attributes:
            view = state.pair_view()
            left, right = ctx.indexes(pair)
            assessments.append(assess_pair(view.left, view.right, view.markers, left, right,
                                           ctx.project.evidence_model))
        shown, chars = state.characters()
        disclosed, total = disclosed + shown, total + chars
    start = Fraction(0)
    if assessments:
        start = kapr_score(assessments, ctx.project.kappa, ctx.n_rows, len(ctx.attributes)).value
    if start > Fraction(repr(assignment.budget)):
        raise AssignmentError(
            f"opening {[a.name for a in attributes]} at partial costs {float(start):.4f}, "
            f"over the budget {assignment.budget}"
        )
    assignment.kapr_exact, assignment.kapr = str(start), float(start)
    assignment.chars_disclosed, assignment.chars_total = disclosed, total
    db.session.flush()
