"""Write a new assignment: its row and its pairs in bulk, and the cells opened at the start."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from flask import current_app

from app.bulk import write_int_rows, write_numbered
from app.extensions import db
from app.models import Assignment, AssignmentPair, Project, User
from app.projects.staffing.errors import AssignmentError
from app.projects.staffing.starting import open_start_cells
from app.review.handles import new_handles

__all__ = [
    "DEFAULT_REVIEW_MAX_PAIRS",
    "WRITE_CHUNK",
    "check_review_size",
    "create_assignment",
    "review_max_pairs",
]

#: Assignment pairs written per statement (rows held in memory at once).
WRITE_CHUNK = 100_000
#: The most pairs one assignment step sends to review (``REVIEW_MAX_PAIRS``): a project may
#: store millions of candidate pairs (blocking, a linker's scored pairs), but people review
#: a band, a sample or a share of them. Above it, triage the pairs or assign a list of them.
DEFAULT_REVIEW_MAX_PAIRS = 100_000


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
    handles: bool = False,
) -> Assignment:
    """Write the assignment of ``chosen`` (checked pairs of the round, ``characters`` in all)
    in bulk: its pairs by :func:`app.bulk.write_numbered` (one statement per chunk on SQLite,
    COPY on PostgreSQL), never an ORM object per pair; with ``handles``, each pair's random
    handle beside it (:mod:`app.review.handles`). Only a ``start_partial`` assignment reads
    the pairs one by one (each opened cell is priced)."""
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
        if handles:
            rows = [np.full(len(part), assignment.id), part, np.arange(start, start + len(part))]
            table = np.column_stack([*rows, new_handles(len(part))])
            write_int_rows(AssignmentPair, (*columns, "handle"), table)
        else:
            write_numbered(AssignmentPair, columns, assignment.id, part, start)
    db.session.expire(assignment, ["pairs"])
    if start_partial:
        identifying = {a.name: a for a in project.identifying}
        open_start_cells(assignment, [identifying[n] for n in start_partial])
    return assignment
