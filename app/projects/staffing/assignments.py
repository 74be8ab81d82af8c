"""Give a worker a share of a project's pairs with a privacy budget."""

from __future__ import annotations

from collections.abc import Sequence
from fractions import Fraction

import numpy as np
from flask import current_app
from sqlalchemy import func, select
from sqlalchemy.orm import selectinload

from app.bulk import int_table, write_numbered
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
from app.projects.staffing.characters import pair_characters, pairs_of

#: Assignment pairs written per statement (rows held in memory at once).
WRITE_CHUNK = 100_000
#: The most pairs one assignment step sends to review (``REVIEW_MAX_PAIRS``): a project may
#: store millions of candidate pairs (blocking, a linker's scored pairs), but people review
#: a band, a sample or a share of them. Above it, triage the pairs or assign a list of them.
DEFAULT_REVIEW_MAX_PAIRS = 100_000


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


def review_max_pairs() -> int:
    return int(current_app.config.get("REVIEW_MAX_PAIRS", DEFAULT_REVIEW_MAX_PAIRS))


def check_review_size(n_pairs: int) -> None:
    """Refuse sending more than :func:`review_max_pairs` pairs to review in one step."""
    limit = review_max_pairs()
    if n_pairs > limit:
        raise AssignmentError(
            f"{n_pairs:,} pairs is more than the {limit:,} one assignment step sends to review; "
            "triage the pairs (a band and a calibration sample) or assign a list of them"
        )


def create_assignment(
    project: Project,
    worker: User,
    budget: float,
    chosen: Sequence[int] | np.ndarray,
    characters: int,
    start_partial: Sequence[str] = (),
    *,
    resolver: bool = False,
    round: int,
) -> Assignment:
    """Write the assignment of ``chosen`` (checked pairs of the round, ``characters`` in all)
    in bulk: its pairs by :func:`app.bulk.write_numbered` (one statement per chunk on SQLite,
    COPY on PostgreSQL), never an ORM object per pair. Only a ``start_partial`` assignment
    reads the pairs one by one (each opened cell is priced)."""
    if not len(chosen):
        raise AssignmentError("an assignment needs at least one pair")
    assignment = Assignment(
        project_id=project.id,
        worker_id=worker.id,
        budget=float(budget),
        resolver=resolver,
        round=round,
        chars_total=characters,
    )
    db.session.add(assignment)
    db.session.flush()
    columns = ("assignment_id", "pair_id", "position")
    chosen = np.asarray(chosen, dtype=np.int64)
    for start in range(0, len(chosen), WRITE_CHUNK):
        part = chosen[start : start + WRITE_CHUNK]
        write_numbered(AssignmentPair, columns, assignment.id, part, start)
    db.session.expire(assignment, ["pairs"])
    if start_partial:
        identifying = {a.name: a for a in project.identifying}
        _open_start_cells(assignment, [identifying[n] for n in start_partial])
    return assignment


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
    pairs = db.session.scalars(
        select(Pair)
        .join(AssignmentPair, AssignmentPair.pair_id == Pair.id)
        .where(AssignmentPair.assignment_id == assignment.id)
        .order_by(AssignmentPair.position)
        .options(selectinload(Pair.record_a), selectinload(Pair.record_b))
    ).all()
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
