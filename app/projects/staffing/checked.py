"""Assignments with known-truth checks mixed in (docs/quality.md)."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from app.models import Assignment, Project, User
from app.projects.quality import CheckError, CheckPlan, CheckSpec, place, plan_checks, record_checks
from app.projects.staffing.characters import pair_characters, pairs_of
from app.projects.staffing.errors import AssignmentError
from app.projects.staffing.starting import open_start_cells
from app.projects.staffing.writing import check_review_size, create_assignment

__all__ = ["assign_checked", "checked_plan", "write_checked"]


def checked_plan(project: Project, round: int, chosen, spec: CheckSpec, rng) -> CheckPlan:
    """The round's checks for the ``chosen`` real pairs, a refusal as an AssignmentError."""
    try:
        return plan_checks(project, round, np.asarray(chosen, dtype=np.int64), spec, rng)
    except CheckError as exc:
        raise AssignmentError(str(exc)) from None


def write_checked(
    project: Project,
    worker: User,
    budget: float,
    pair_ids,
    characters: int,
    start_partial: Sequence[str],
    round: int,
    plan: CheckPlan,
    rng: np.random.Generator,
) -> Assignment:
    """Write one assignment of ``pair_ids`` (its real pairs, ``characters`` in all, and some
    of ``plan``'s), in a random order under random handles, and its checks."""
    placed = place(plan, pair_ids, rng)
    check_review_size(len(placed.pair_ids))
    assignment = create_assignment(
        project, worker, budget, placed.pair_ids, characters, round=round, handles=True
    )
    record_checks(assignment, plan.spec, placed)
    if start_partial:  # after the checks are known: their cells go to the checks' part
        identifying = {a.name: a for a in project.identifying}
        open_start_cells(assignment, [identifying[n] for n in start_partial])
    return assignment


def assign_checked(
    project: Project,
    worker: User,
    budget: float,
    chosen: Sequence[int] | np.ndarray,
    characters: int,
    start_partial: Sequence[str],
    round: int,
    spec: CheckSpec,
    seed: int | None = None,
) -> Assignment:
    """Write ``worker``'s assignment of the ``chosen`` real pairs (``characters`` in all) and
    ``spec``'s checks. The caller commits."""
    rng = np.random.default_rng(seed)
    plan = checked_plan(project, round, chosen, spec, rng)
    added = [p for p in plan.extra.tolist() if p not in plan.synthetic]
    if added:  # real pairs added as truth checks: their characters too
        characters += int(pair_characters(project, *pairs_of(project, added)).sum())
    ids = np.concatenate([np.asarray(chosen, dtype=np.int64), plan.extra])
    return write_checked(project, worker, budget, ids, characters, start_partial, round, plan, rng)
