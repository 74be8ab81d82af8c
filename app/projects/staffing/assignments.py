"""Give a worker a share of a project's pairs with a privacy budget."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from sqlalchemy import func, select

from app.bulk import int_table
from app.extensions import db
from app.models import (
    REVIEWED,
    Assignment,
    AssignmentPair,
    Pair,
    Project,
    Purpose,
    Role,
    User,
)
from app.projects.quality.placing import CheckSpec
from app.projects.staffing.characters import pair_characters, pairs_of
from app.projects.staffing.errors import AssignmentError
from app.projects.staffing.writing import (  # noqa: F401  (part of this API)
    DEFAULT_REVIEW_MAX_PAIRS,
    check_review_size,
    create_assignment,
    review_max_pairs,
)


def assign_pairs(
    project: Project,
    worker: User,
    budget: float,
    pair_ids: Sequence[int] | str = "all",
    start_partial: Sequence[str] = (),
    *,
    resolver: bool = False,
    round: int | None = None,
    checks: CheckSpec | None = None,
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
    the one case where the assignee is a manager (or admin) rather than a worker. ``checks``
    mixes known-truth checks in (:mod:`app.projects.staffing.checked`).
    """
    number = check_assignee(project, worker, budget, start_partial, resolver=resolver, round=round)
    if pair_ids == "all":
        chosen, record_a, record_b = round_pairs(project, number)
    elif isinstance(pair_ids, str):
        raise AssignmentError("'pairs' must be \"all\" or a list of pair ids")
    else:
        chosen = list(dict.fromkeys(pair_ids))
        _check_assignable(project, chosen)
        record_a, record_b = pairs_of(project, chosen)
    check_review_size(len(chosen))
    characters = int(pair_characters(project, record_a, record_b).sum())
    if checks is not None and not resolver:
        from app.projects.staffing.checked import assign_checked

        args = (project, worker, budget, chosen, characters, start_partial, number)
        return assign_checked(*args, checks)
    return create_assignment(
        project, worker, budget, chosen, characters, start_partial, resolver=resolver, round=number
    )


def check_assignee(
    project: Project,
    worker: User,
    budget: float,
    start_partial: Sequence[str] = (),
    *,
    resolver: bool = False,
    round: int | None = None,
) -> int:
    """Refuse an assignment :func:`assign_pairs` would refuse before reading any pair; return
    the round it is for."""
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
    identifying = {a.name for a in project.identifying}
    unknown = [name for name in start_partial if name not in identifying]
    if isinstance(start_partial, str) or unknown:
        raise AssignmentError(f"'start_partial' names no identifying attribute: {unknown}")
    return number


def round_pairs(project: Project, number: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The pairs of round ``number`` waiting for review, in id (review) order, as arrays of
    pair ids and their records' ids: every purpose but the model's."""
    query = select(Pair.id, Pair.record_a_id, Pair.record_b_id).where(
        Pair.project_id == project.id,
        Pair.round == number,
        Pair.purpose.in_([p.value for p in REVIEWED]),
    )
    # id order made here: by ORDER BY, SQLite walks all the project's pairs by its id index
    table = int_table(query, 3)
    table = table[np.argsort(table[:, 0], kind="stable")]
    return table[:, 0], table[:, 1], table[:, 2]


def round_pair_ids(project: Project, number: int) -> list[int]:
    """The pairs of round ``number`` waiting for review, in id (review) order: every purpose
    but the model's."""
    return round_pairs(project, number)[0].tolist()


def newest_round(project: Project) -> int:
    """The project's newest round of pairs (1 for a project without pairs)."""
    found = db.session.scalar(select(func.max(Pair.round)).where(Pair.project_id == project.id))
    return found or 1


def _check_assignable(project: Project, pair_ids: Sequence[int]) -> None:
    """Refuse ids that are no pair of the project, and pairs the model decided."""
    ids, found = list(pair_ids), {}
    for start in range(0, len(ids), 10_000):  # bounded IN lists (SQLite's variable limit)
        chunk = ids[start : start + 10_000]
        # by id alone (with ``project_id = ?`` SQLite scans the project's round/purpose index)
        query = select(Pair.id, Pair.project_id, Pair.purpose).where(Pair.id.in_(chunk))
        found.update(
            (i, purpose) for i, owner, purpose in db.session.execute(query) if owner == project.id
        )
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
    from app.review.handles import new_handles
    from app.review.services import Context, pair_states

    start = max((link.position for link in locked.pairs), default=-1) + 1
    named = locked.check_source is not None  # an assignment with checks names pairs by handles
    handles = new_handles(len(pair_ids)) if named else [None] * len(pair_ids)
    added = [
        AssignmentPair(pair_id=p, position=start + i, handle=h)
        for i, (p, h) in enumerate(zip(pair_ids, handles, strict=True))
    ]
    locked.pairs.extend(added)
    db.session.flush()
    pairs = db.session.scalars(select(Pair).where(Pair.id.in_(list(pair_ids)))).all()
    locked.chars_total += sum(s.characters()[1] for s in pair_states(Context.of(locked), pairs))
    locked.version += 1
    db.session.flush()
    return locked
