"""Share a project's pairs among workers (single or double coding) and change budgets."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from fractions import Fraction

import numpy as np
from sqlalchemy import select

from app.extensions import db
from app.models import Assignment, BudgetChange, Project, Role, User
from app.projects.quality import CheckSpec
from app.projects.staffing.assignments import (
    AssignmentError,
    check_assignee,
    check_review_size,
    create_assignment,
    lock_assignment,
    newest_round,
    round_pairs,
)
from app.projects.staffing.characters import pair_characters, pairs_of
from app.projects.staffing.checked import checked_plan, write_checked
from app.units import percent

__all__ = ["assign_workers", "change_budget", "check_plan", "share"]


def share(pair_ids: Sequence[int], workers: int, coders: int) -> list[list[int]]:
    """Split ``pair_ids`` evenly: each pair goes to ``coders`` distinct workers.

    Pair ``i`` goes to workers ``(i·coders + k) mod workers`` for ``k < coders``, so the
    shares differ by at most one pair and with as many coders as workers every worker gets
    every pair.
    """
    ids = np.asarray(pair_ids, dtype=np.int64)
    return [ids[taken].tolist() for taken in share_positions(len(ids), workers, coders)]


def share_positions(n: int, workers: int, coders: int) -> list[np.ndarray]:
    """:func:`share` of ``n`` pairs as each worker's positions in the list, in order."""
    if not 1 <= coders <= workers:
        raise AssignmentError(f"coding by {coders} needs at least {coders} workers")
    i = np.arange(n, dtype=np.int64)
    # For a pair, its coders' workers (i·coders + k) mod workers, k < coders, are distinct
    # (coders <= workers), so a worker gets pair i once, in the order of i.
    first = (i * coders) % workers
    return [np.flatnonzero((w - first) % workers < coders) for w in range(workers)]


def assign_workers(
    project: Project,
    budgets: Mapping[str, float],
    *,
    coders: int = 1,
    start_partial: Sequence[str] = (),
    page_size: int | None = None,
    round: int | None = None,
    progress: Callable[[int, int], None] | None = None,
    checks: CheckSpec | None = None,
) -> list[Assignment]:
    """Give each named worker an even share of a round's pairs (default: the newest round)
    with their budget; the model's pairs are never shared. The caller commits.

    ``progress(step, 2)`` is told when the pairs are read and counted (step 1), before
    anything is written: a job's progress commits the session (:mod:`app.jobs`), so it is
    never called between the writes, which commit or roll back together. ``checks`` mixes
    known-truth checks in, shared among the workers as the real pairs are.
    Raises :class:`AssignmentError` (nothing is kept: the caller rolls back).
    """
    users, number = check_plan(project, budgets, start_partial=start_partial, round=round)
    if page_size is not None and not 1 <= page_size <= 200:
        raise AssignmentError("the page size is a whole number from 1 to 200")
    pair_ids, record_a, record_b = round_pairs(project, number)
    if not len(pair_ids):
        raise AssignmentError(f"round {number} has no pairs to review; block or triage first")
    check_review_size(len(pair_ids))
    characters = pair_characters(project, record_a, record_b)
    if checks is not None:
        return _assign_checked(
            project, users, budgets, coders, start_partial, number, checks,
            (pair_ids, characters),
        )  # fmt: skip
    if progress is not None:
        progress(1, 2)
    names, made = list(budgets), []
    for name, taken in zip(names, share_positions(len(pair_ids), len(names), coders), strict=True):
        if len(taken):
            made.append(
                create_assignment(
                    project,
                    users[name],
                    budgets[name],
                    pair_ids[taken],
                    int(characters[taken].sum()),
                    list(start_partial),
                    round=number,
                )  # fmt: skip
            )
    if page_size is not None:
        project.page_size = page_size
    return made


def _assign_checked(project, users, budgets, coders, start_partial, number, checks, real):
    """:func:`assign_workers` with checks: the round's checks join its pairs and are shared
    with them, so a double-coded round codes its checks twice too."""
    pair_ids, characters = real
    rng = np.random.default_rng()
    plan = checked_plan(project, number, pair_ids, checks, rng)
    extra = {int(p): 0 for p in plan.extra}  # a truth check added: its characters are real
    added = [p for p in extra if p not in plan.synthetic]
    if added:
        found = pair_characters(project, *pairs_of(project, added)).tolist()
        extra.update(zip(added, found, strict=True))
    ids = np.concatenate([pair_ids, plan.extra])
    chars = np.concatenate([characters, np.array(list(extra.values()), dtype=np.int64)])
    made = []
    for name, taken in zip(budgets, share_positions(len(ids), len(budgets), coders), strict=True):
        if len(taken):
            args = (ids[taken], int(chars[taken].sum()), list(start_partial), number, plan, rng)
            made.append(write_checked(project, users[name], budgets[name], *args))
    return made


def check_plan(
    project: Project,
    budgets: Mapping[str, float],
    *,
    start_partial: Sequence[str] = (),
    round: int | None = None,
) -> tuple[dict[str, User], int]:
    """Refuse what :func:`assign_workers` would refuse before reading any pair: unknown
    users, users who are not workers, budgets, workers assigned in the round already; return
    the users by name and the round."""
    users = {
        u.username: u
        for u in db.session.scalars(select(User).where(User.username.in_(list(budgets))))
    }
    missing = [name for name in budgets if name not in users]
    if missing:
        raise AssignmentError(f"no such user: {', '.join(missing)}")
    not_workers = [name for name, u in users.items() if u.role != Role.WORKER]
    if not_workers:
        raise AssignmentError(f"not workers: {', '.join(not_workers)}")
    number = newest_round(project) if round is None else round
    for name in budgets:
        check_assignee(project, users[name], budgets[name], start_partial, round=number)
    return users, number


def change_budget(assignment: Assignment, budget: float, by: User) -> BudgetChange:
    """Set ``assignment``'s KAPR budget to ``budget`` and record the change. The caller commits.

    The row is locked (PostgreSQL) or the write lock held (SQLite ``BEGIN IMMEDIATE``) while
    the spent KAPR is compared, so a concurrent reveal cannot slip between check and write.
    A budget below what the worker has already spent is refused, comparing exactly: the
    budget as the decimal it was given (``Fraction(repr(budget))``, as reveals read it) with
    the exact KAPR, so the float of a KAPR such as 7/108 (just below it) is refused.
    """
    if isinstance(budget, bool) or not isinstance(budget, int | float) or not 0 <= budget <= 1:
        raise AssignmentError("the budget is a KAPR limit from 0 to 1")
    locked = lock_assignment(assignment.id)
    if Fraction(repr(float(budget))) < Fraction(locked.kapr_exact):
        raise AssignmentError(
            f"{locked.worker.username} has spent {percent(locked.kapr)} of the maximum KAPR "
            f"(a KAPR of {locked.kapr:.4g}) already; the budget cannot be lower than that"
        )
    change = BudgetChange(
        assignment_id=locked.id,
        changed_by=by.id,
        budget_before=locked.budget,
        budget_after=float(budget),
    )
    locked.budget = float(budget)
    locked.version += 1
    db.session.add(change)
    db.session.flush()
    return change
