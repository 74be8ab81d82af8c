"""Settle many conflicts at once: resolve or refer the manager's selection.

Each pair is checked as a single action would check it; a pair that cannot take the action
(already settled by a majority, waiting for a referral, not a conflict) is skipped with its
reason and the others go ahead, so one stale row in a selection does not block the page.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from app.extensions import db
from app.models import ConflictResolution, Project, Role, User
from app.projects.conflicts.queue import (
    OPEN,
    REFERRED,
    SETTLED,
    ConflictError,
    conflict_queue,
    refer_conflict,
)

__all__ = ["MAX_BULK", "BulkResult", "refer_conflicts", "resolve_conflicts"]

MAX_BULK = 1000  # pairs in one bulk action


@dataclass
class BulkResult:
    """The pairs the action was taken on, and those skipped with the reason why."""

    done: list[int] = field(default_factory=list)
    skipped: list[tuple[int, str]] = field(default_factory=list)


def _selection(pair_ids: Sequence[int]) -> list[int]:
    ids = list(dict.fromkeys(pair_ids))  # once each, in the order given
    if not ids:
        raise ConflictError("select at least one conflict")
    if len(ids) > MAX_BULK:
        raise ConflictError(f"at most {MAX_BULK} conflicts at once")
    return ids


def resolve_conflicts(
    project: Project, pair_ids: Sequence[int], decision: str, confidence: str | None, by: User
) -> BulkResult:
    """Record the manager's answer for every selected conflict they may decide. Caller commits."""
    if decision not in ("same", "different"):
        raise ConflictError("the decision is 'same' or 'different'")
    if confidence not in (None, "high", "medium", "low"):
        raise ConflictError("the confidence is high, medium or low")
    items = {item.pair_id: item for item in conflict_queue(project)}
    result = BulkResult()
    for pair_id in _selection(pair_ids):
        item = items.get(pair_id)
        if item is None:
            result.skipped.append((pair_id, "not a conflict in this project"))
        elif not item.can_resolve:
            reason = {
                OPEN: "refer it to an additional reviewer first",
                REFERRED: f"it waits for {item.referred_to}'s answer",
                SETTLED: "the reviewers' majority has settled it",
            }[item.state]
            result.skipped.append((pair_id, reason))
        else:
            db.session.add(
                ConflictResolution(
                    pair_id=pair_id, resolved_by=by.id, decision=decision, confidence=confidence
                )
            )
            result.done.append(pair_id)
    db.session.flush()
    return result


def refer_conflicts(
    project: Project, pair_ids: Sequence[int], worker: User, budget: float | None, by: User
) -> BulkResult:
    """Refer every selected open conflict ``worker`` does not review already. Caller commits."""
    if worker.role != Role.WORKER:
        raise ConflictError(f"{worker.username!r} is not a worker")
    items = {item.pair_id: item for item in conflict_queue(project)}
    result = BulkResult()
    for pair_id in _selection(pair_ids):
        item = items.get(pair_id)
        if item is None:
            result.skipped.append((pair_id, "not a conflict in this project"))
        elif not item.can_refer:
            result.skipped.append((pair_id, f"it cannot be referred ({item.state})"))
        elif worker.username in {a.reviewer for a in item.outcome.answers}:
            result.skipped.append((pair_id, f"{worker.username} reviews it already"))
        else:
            refer_conflict(project, pair_id, worker, budget, by=by)  # checks it once more
            result.done.append(pair_id)
    return result
