"""Give a worker a share of a project's pairs with a privacy budget."""

from __future__ import annotations

from collections.abc import Sequence
from fractions import Fraction

from sqlalchemy import func, select

from app.extensions import db
from app.models import (
    REVIEWED,
    Assignment,
    AssignmentPair,
    CellState,
    Pair,
    Project,
    Purpose,
    Role,
    User,
)


class AssignmentError(ValueError):
    """A user-facing reason an assignment cannot be made."""


def assign_pairs(
    project: Project,
    worker: User,
    budget: float,
    pair_ids: Sequence[int] | str = "all",
    start_partial: Sequence[str] = (),
    *,
    resolver: bool = False,
    round: int | None = None,
) -> Assignment:
    """Create ``worker``'s assignment of ``pair_ids`` (or all pairs) of a round of ``project``.

    ``"all"`` means every pair of the round waiting for review (band, calibration, blocking
    or pair-file pairs): the model's pairs are never assigned. ``round`` defaults to the
    project's newest; a worker holds one assignment per round, so a new round is new work
    and leaves the worker's earlier assignments (pairs, KAPR, budget, meters) as they are.
    The budget is a KAPR limit in [0, 1]. Cells of the ``start_partial`` attributes start at
    partial (where a partial level exists) and are charged as the starting KAPR, so the
    assignment is refused when that alone exceeds the budget. The caller commits.

    ``resolver=True`` makes a manager's resolver assignment (:mod:`app.projects.conflicts.queue`):
    the one case where the assignee is a manager (or admin) rather than a worker.
    """
    allowed = (Role.MANAGER, Role.ADMIN) if resolver else (Role.WORKER,)
    if worker.role not in allowed:
        raise AssignmentError(f"{worker.username!r} is not a {'manager' if resolver else 'worker'}")
    if isinstance(budget, bool) or not isinstance(budget, int | float) or not 0 <= budget <= 1:
        raise AssignmentError("the budget is a KAPR limit from 0 to 1")
    number = newest_round(project) if round is None else round
    if isinstance(number, bool) or not isinstance(number, int) or number < 1:
        raise AssignmentError("'round' must be a round of this project (1, 2, ...)")
    exists = db.session.scalar(
        select(Assignment.id).where(
            Assignment.project_id == project.id,
            Assignment.worker_id == worker.id,
            Assignment.round == number,
        )
    )
    if exists:
        where = f"round {number} of this project" if number > 1 else "this project"
        raise AssignmentError(f"{worker.username!r} has an assignment in {where} already")
    if pair_ids == "all":
        chosen = round_pair_ids(project, number)
    elif isinstance(pair_ids, str):
        raise AssignmentError("'pairs' must be \"all\" or a list of pair ids")
    else:
        chosen = list(dict.fromkeys(pair_ids))
        _check_assignable(project, chosen)
    if not chosen:
        raise AssignmentError("an assignment needs at least one pair")
    identifying = {a.name: a for a in project.identifying}
    unknown = [name for name in start_partial if name not in identifying]
    if isinstance(start_partial, str) or unknown:
        raise AssignmentError(f"'start_partial' names no identifying attribute: {unknown}")
    assignment = Assignment(
        project_id=project.id,
        worker_id=worker.id,
        budget=float(budget),
        resolver=resolver,
        round=number,
    )
    assignment.pairs = [AssignmentPair(pair_id=p, position=i) for i, p in enumerate(chosen)]
    db.session.add(assignment)
    db.session.flush()
    _open_start_cells(assignment, [identifying[n] for n in start_partial])
    return assignment


def round_pair_ids(project: Project, number: int) -> list[int]:
    """The pairs of round ``number`` waiting for review, in id (review) order: every purpose
    but the model's."""
    query = select(Pair.id).where(
        Pair.project_id == project.id,
        Pair.round == number,
        Pair.purpose.in_([p.value for p in REVIEWED]),
    )
    return list(db.session.scalars(query.order_by(Pair.id)))


def newest_round(project: Project) -> int:
    """The project's newest round of pairs (1 for a project without pairs)."""
    found = db.session.scalar(select(func.max(Pair.round)).where(Pair.project_id == project.id))
    return found or 1


def _check_assignable(project: Project, pair_ids: Sequence[int]) -> None:
    """Refuse ids that are no pair of the project, and pairs the model decided."""
    ids, found = list(pair_ids), {}
    for start in range(0, len(ids), 10_000):  # bounded IN lists (SQLite's variable limit)
        chunk = ids[start : start + 10_000]
        query = select(Pair.id, Pair.purpose).where(
            Pair.project_id == project.id, Pair.id.in_(chunk)
        )
        found.update(db.session.execute(query).all())
    unknown = [p for p in pair_ids if p not in found]
    if unknown:
        raise AssignmentError(f"pairs not in this project: {unknown[:10]}")
    decided = [p for p in pair_ids if found[p] == Purpose.MODEL]
    if decided:
        raise AssignmentError(f"pairs the model decided are never assigned: {decided[:10]}")


def lock_assignment(assignment_id: int) -> Assignment:
    """The assignment, locked against concurrent reveals until the transaction ends.

    ``SELECT ... FOR UPDATE`` on PostgreSQL; SQLite transactions begin ``IMMEDIATE`` (see
    ``app.database``), so the write lock is already held. The row is re-read either way.
    """
    query = select(Assignment).where(Assignment.id == assignment_id)
    if db.session.get_bind().dialect.name != "sqlite":
        query = query.with_for_update()
    return db.session.scalars(query.execution_options(populate_existing=True)).one()


def extend_assignment(assignment: Assignment, pair_ids: Sequence[int]) -> Assignment:
    """Append ``pair_ids`` (of the same project) to ``assignment``, masked. The caller commits.

    The KAPR already spent stays as charged: it was computed over fewer rows, so it bounds
    the score over the larger assignment from above. The characters meter grows by the new
    pairs' characters.
    """
    locked = lock_assignment(assignment.id)
    present = {link.pair_id for link in locked.pairs}
    _check_assignable(locked.project, pair_ids)
    repeated = [p for p in pair_ids if p in present]
    if repeated:
        raise AssignmentError(f"pairs already in this assignment: {repeated[:10]}")
    from app.review.services import Context, pair_states

    start = max((link.position for link in locked.pairs), default=-1) + 1
    added = [AssignmentPair(pair_id=p, position=start + i) for i, p in enumerate(pair_ids)]
    locked.pairs.extend(added)
    db.session.flush()
    pairs = db.session.scalars(select(Pair).where(Pair.id.in_(list(pair_ids)))).all()
    locked.chars_total += sum(s.characters()[1] for s in pair_states(Context.of(locked), pairs))
    locked.version += 1
    db.session.flush()
    return locked


def _open_start_cells(assignment: Assignment, attributes) -> None:
    """Count the characters, pre-open ``attributes`` at partial and charge the start KAPR."""
    from app.core.disclosure import Level
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
                    db.session.add(
                        CellState(
                            assignment_id=assignment.id,
                            pair_id=pair.id,
                            row=row,
                            attribute_id=attribute.id,
                            level=Level.PARTIAL.value,
                        )
                    )
        if attributes:
            view = state.pair_view()
            left, right = ctx.indexes(pair)
            assessments.append(
                assess_pair(
                    view.left, view.right, view.markers, left, right, ctx.project.evidence_model
                )
            )
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
