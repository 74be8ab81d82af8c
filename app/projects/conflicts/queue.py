"""The conflicts queue: pairs double-coders disagree on, and how each gets settled.

Each project has a policy (:class:`~app.models.ConflictPolicy`):

- ``manager``: the manager decides every open conflict;
- ``reviewer``: the manager refers the pair to an additional worker (added to that worker's
  assignment, or to a new one with a budget the manager chooses); the majority of the three
  answers decides (:func:`~app.projects.progress.agreement.consensus`) and a remaining tie goes to
  the manager.

The manager sees what each reviewer chose, never what they revealed. To see values, the
manager reveals them through their own *resolver assignment*: an ordinary assignment with
the project's ``resolver_budget``, holding only pairs the manager is deciding, charged by
:func:`~app.review.services.reveal_cell` like a worker's. There is no unlimited budget.
"""

from __future__ import annotations

from dataclasses import dataclass

from sqlalchemy import select

from app.extensions import db
from app.models import (
    Assignment,
    ConflictPolicy,
    ConflictReferral,
    ConflictResolution,
    Pair,
    Project,
    Role,
    User,
)
from app.projects.blocking.pairing import pair_records
from app.projects.progress.finals import disputed_pairs
from app.projects.progress.outcomes import PairOutcome, outcomes
from app.projects.staffing.assignments import AssignmentError, assign_pairs, extend_assignment
from app.projects.staffing.workers import change_budget

__all__ = [
    "ConflictError",
    "ConflictItem",
    "conflict_queue",
    "open_for_resolution",
    "refer_conflict",
    "resolve_conflict",
    "resolver_assignment",
    "reveal_for_resolution",
    "set_conflict_policy",
]

OPEN, REFERRED, TIE, SETTLED = "open", "referred", "tie", "settled"


class ConflictError(ValueError):
    """A user-facing reason a conflict cannot be referred, resolved or opened."""


@dataclass(frozen=True)
class ConflictItem:
    """A pair reviewers disagree on: its answers, its state and who it was referred to.

    ``state`` is ``open`` (waiting for the manager: a decision, or a referral under the
    reviewer policy), ``referred`` (waiting for the additional reviewer), ``tie`` (three
    answers without a majority: the manager decides) or ``settled``.
    """

    outcome: PairOutcome
    state: str
    policy: str
    referred_to: str | None = None
    #: The two records as ``(source label, record id)``: the ids the manager uploaded, so a
    #: conflict can be found in the files without revealing a value.
    records: tuple[tuple[str, str], tuple[str, str]] | None = None

    @property
    def pair_id(self) -> int:
        return self.outcome.pair_id

    @property
    def can_refer(self) -> bool:
        return self.state == OPEN and self.policy == ConflictPolicy.REVIEWER

    @property
    def can_resolve(self) -> bool:
        """The manager decides: an open conflict (manager policy), a tie, or a re-decision."""
        if self.outcome.resolution is not None or self.state == TIE:
            return True
        return self.state == OPEN and self.policy == ConflictPolicy.MANAGER


def conflict_queue(project: Project) -> list[ConflictItem]:
    """Every pair whose reviewers disagree, those waiting for someone first."""
    referrals = dict(
        db.session.execute(
            select(ConflictReferral.pair_id, ConflictReferral.assignment_id)
            .join(Pair, Pair.id == ConflictReferral.pair_id)
            .where(Pair.project_id == project.id)
            .order_by(ConflictReferral.id)
        ).all()
    )
    items = []
    # The database finds the pairs reviewers disagree on; only their outcomes are built.
    found = outcomes(project.id, only=disputed_pairs(project.id))
    disputed = [o for o in found.values() if o.conflict]
    records = {
        pair_id: ((la, a), (lb, b))
        for pair_id, (la, a, lb, b, *_) in pair_records(
            project.id, [o.pair_id for o in disputed]
        ).items()
    }
    for outcome in disputed:
        referral = referrals.get(outcome.pair_id)
        third = next((a for a in outcome.answers if a.assignment_id == referral), None)
        if outcome.final is not None:
            state = SETTLED
        elif project.conflict_policy == ConflictPolicy.MANAGER or third is None:
            state = OPEN
        else:
            state = REFERRED if third.decision is None else TIE
        items.append(
            ConflictItem(
                outcome, state, project.conflict_policy, third and third.reviewer,
                records.get(outcome.pair_id),
            )
        )  # fmt: skip
    return sorted(items, key=lambda i: (i.state == SETTLED, i.pair_id))


def _item(project: Project, pair_id: int) -> ConflictItem:
    item = next((i for i in conflict_queue(project) if i.pair_id == pair_id), None)
    if item is None:
        raise ConflictError("this pair is not a conflict in this project")
    return item


def set_conflict_policy(project: Project, policy: str, resolver_budget: float, by: User) -> None:
    """Set the project's policy and resolver budget. The caller commits.

    A manager's existing resolver assignment gets the new budget through
    :func:`~app.projects.staffing.change_budget` (refused below what was spent).
    """
    if policy not in set(ConflictPolicy):
        raise ConflictError("the policy is 'manager' or 'reviewer'")
    budget = resolver_budget
    if isinstance(budget, bool) or not isinstance(budget, int | float) or not 0 <= budget <= 1:
        raise ConflictError("the resolver budget is a KAPR limit from 0 to 1")
    project.conflict_policy = policy
    project.resolver_budget = float(budget)
    resolvers = db.session.scalars(
        select(Assignment).where(Assignment.project_id == project.id, Assignment.resolver)
    )
    for assignment in resolvers:
        if assignment.budget != float(budget):
            try:
                change_budget(assignment, float(budget), by=by)
            except AssignmentError as exc:
                raise ConflictError(str(exc)) from None
    db.session.flush()


def refer_conflict(
    project: Project, pair_id: int, worker: User, budget: float | None, by: User
) -> ConflictReferral:
    """Give an open conflict to ``worker`` as an additional reviewer. The caller commits.

    The pair is appended to the worker's assignment in the project, or a new assignment
    with ``budget`` is made for it.
    """
    item = _item(project, pair_id)
    if not item.can_refer:
        raise ConflictError(
            f"this conflict cannot be referred (policy {item.policy}, {item.state})"
        )
    if worker.role != Role.WORKER:
        raise ConflictError(f"{worker.username!r} is not a worker")
    if worker.username in {a.reviewer for a in item.outcome.answers}:
        raise ConflictError(f"{worker.username} reviews this pair already; choose another worker")
    # The worker's assignment of the pair's round, else their newest in the project.
    pair_round = db.session.scalar(select(Pair.round).where(Pair.id == pair_id))
    assignment = db.session.scalar(
        select(Assignment)
        .where(
            Assignment.project_id == project.id,
            Assignment.worker_id == worker.id,
            Assignment.resolver.is_(False),
        )
        .order_by((Assignment.round == pair_round).desc(), Assignment.round.desc())
        .limit(1)
    )
    try:
        if assignment is not None:
            assignment = extend_assignment(assignment, [pair_id])
        elif budget is None:
            raise ConflictError(f"{worker.username} has no assignment here: give a budget")
        else:
            assignment = assign_pairs(project, worker, budget, [pair_id])
    except AssignmentError as exc:
        raise ConflictError(str(exc)) from None
    referral = ConflictReferral(pair_id=pair_id, assignment_id=assignment.id, referred_by=by.id)
    db.session.add(referral)
    db.session.flush()
    return referral


def resolve_conflict(
    project: Project, pair_id: int, decision: str, confidence: str | None, by: User
) -> ConflictResolution:
    """Record the manager's answer for a conflict the policy leaves to them. Caller commits."""
    if decision not in ("same", "different"):
        raise ConflictError("the decision is 'same' or 'different'")
    if confidence not in (None, "high", "medium", "low"):
        raise ConflictError("the confidence is high, medium or low")
    item = _item(project, pair_id)
    if not item.can_resolve:
        reason = {
            OPEN: "refer it to an additional reviewer first",
            REFERRED: f"it waits for {item.referred_to}'s answer",
            SETTLED: "the reviewers' majority has settled it",
        }[item.state]
        raise ConflictError(f"this conflict is not yours to decide: {reason}")
    resolution = ConflictResolution(
        pair_id=pair_id, resolved_by=by.id, decision=decision, confidence=confidence
    )
    db.session.add(resolution)
    db.session.flush()
    return resolution


def resolver_assignment(project: Project, manager: User) -> Assignment | None:
    """The manager's resolver assignment in ``project``, if any."""
    return db.session.scalar(
        select(Assignment).where(
            Assignment.project_id == project.id,
            Assignment.worker_id == manager.id,
            Assignment.resolver,
        )
    )


def open_for_resolution(project: Project, pair_id: int, manager: User) -> Assignment:
    """Put a conflict the manager decides into their resolver assignment (masked, no charge).

    The assignment is made on first use with the project's ``resolver_budget``. Reveals then
    go through :func:`~app.review.services.reveal_cell` with ``by=manager``. Caller commits.
    """
    if not _item(project, pair_id).can_resolve:
        raise ConflictError("only a conflict you are deciding can be opened")
    assignment = resolver_assignment(project, manager)
    try:
        if assignment is None:
            return assign_pairs(project, manager, project.resolver_budget, [pair_id], resolver=True)
        if any(link.pair_id == pair_id for link in assignment.pairs):
            return assignment
        return extend_assignment(assignment, [pair_id])
    except AssignmentError as exc:
        raise ConflictError(str(exc)) from None


def reveal_for_resolution(project: Project, pair_id: int, row: int, attribute: str, by: User):
    """Reveal one cell of a conflict through ``by``'s resolver assignment (budget-limited).

    Returns :class:`~app.review.services.RevealResult`; raises :class:`ConflictError` or
    :class:`~app.review.services.RevealRefused` with nothing changed once rolled back.
    """
    from app.review.services import reveal_cell

    assignment = open_for_resolution(project, pair_id, by)
    return reveal_cell(assignment.id, pair_id, row, attribute, by=by)
