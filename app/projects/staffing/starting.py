"""Cells an assignment opens at partial from the start, charged as its starting KAPR."""

from __future__ import annotations

from fractions import Fraction

from sqlalchemy import select
from sqlalchemy.orm import selectinload

from app.core.disclosure import Level
from app.core.kapr import assess_pair, kapr_score
from app.extensions import db
from app.models import Assignment, AssignmentPair, CellState, Pair
from app.projects.staffing.errors import AssignmentError

__all__ = ["open_start_cells"]


def open_start_cells(assignment: Assignment, attributes) -> None:
    """Count the characters, pre-open ``attributes`` at partial and charge the start KAPR.

    A synthetic check's opened cells go to the checks' part of the worker's meters
    (``checks_kapr_exact``, ``checks_chars_*``), the real pairs' to the real KAPR and
    characters: the worker's meters show their sums.
    """
    from app.review.services import Context, pair_states

    ctx = Context.of(assignment)
    pairs = db.session.scalars(
        select(Pair)
        .join(AssignmentPair, AssignmentPair.pair_id == Pair.id)
        .where(AssignmentPair.assignment_id == assignment.id)
        .order_by(AssignmentPair.position)
        .options(selectinload(Pair.record_a), selectinload(Pair.record_b))
    ).all()
    states = pair_states(ctx, pairs)
    assessments = {True: [], False: []}  # by "a real pair"
    disclosed, total = {True: 0, False: 0}, {True: 0, False: 0}
    for pair, state in zip(pairs, states, strict=True):
        for attribute in attributes:
            for row in (0, 1):
                if state.next_level(row, attribute.name) is Level.PARTIAL:
                    state.levels[row, attribute.name] = Level.PARTIAL
                    db.session.add(
                        CellState(
                            assignment_id=assignment.id,
                            pair_id=pair.id,
                            row=row,
                            attribute_id=attribute.id,
                            level=Level.PARTIAL.value,
                        )
                    )
        real = pair.project_id == ctx.project.id
        if attributes:
            view = state.pair_view()
            left, right = ctx.indexes(pair)
            assessments[real].append(
                assess_pair(
                    view.left, view.right, view.markers, left, right, ctx.project.evidence_model
                )
            )
        shown, chars = state.characters()
        disclosed[real], total[real] = disclosed[real] + shown, total[real] + chars
    scale = (ctx.project.kappa, ctx.n_rows, len(ctx.attributes))
    real, checks = (
        kapr_score(assessments[kind], *scale).value if assessments[kind] else Fraction(0)
        for kind in (True, False)
    )
    if real + checks > Fraction(repr(assignment.budget)):
        raise AssignmentError(
            f"opening {[a.name for a in attributes]} at partial costs {float(real + checks):.4f}, "
            f"over the budget {assignment.budget}"
        )
    assignment.kapr_exact, assignment.kapr = str(real), float(real)
    assignment.checks_kapr_exact = str(checks)
    assignment.chars_disclosed, assignment.chars_total = disclosed[True], total[True]
    assignment.checks_chars_disclosed, assignment.checks_chars_total = (
        disclosed[False],
        total[False],
    )
    db.session.flush()
