"""Workers' answers: record a decision, read the current ones, submit a page, progress.

Every answer is an append-only :class:`~app.models.DecisionEvent`; the newest event of an
(assignment, pair) is its answer, so changing one's mind is one more row, never an update.
Clearing an answer is one more row too (decision ``cleared``): the pair is unanswered again
(:func:`~app.models.current_answer_ids` is the one reader of "the newest answer").
Pages are blocks of ``project.page_size`` pairs in assignment order, numbered from 1.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass

from sqlalchemy import func, select

from app.extensions import db
from app.models import (
    CLEARED,
    Assignment,
    AssignmentPair,
    DecisionEvent,
    User,
    current_answer_ids,
)
from app.models.base import utcnow
from app.review.answers.refusals import (  # noqa: F401  (DECISIONS, CONFIDENCES: part of this API)
    CONFIDENCES,
    DECISIONS,
    AnswerChanged,
    AnswersPaused,
    DecisionError,
    NotInAssignment,
    check_answer,
)
from app.review.answers.save import ANY_VERSION, append_answer
from app.review.breaks import current_session
from app.review.reveal.refusals import PAUSED


class PageIncomplete(DecisionError):
    """A page submitted with pairs still unanswered; ``unanswered`` lists their ids."""

    def __init__(self, unanswered: list[int]):
        super().__init__(f"{len(unanswered)} pair(s) on this page have no answer yet")
        self.unanswered = unanswered


@dataclass(frozen=True, slots=True)
class PageSubmitted:
    page: int
    next_page: int | None  # the next page with an unanswered pair; None when all answered
    decided: int
    total: int


def own_assignment(assignment_id: int, user: User) -> Assignment:
    """Return the assignment if ``user`` is its worker.

    Raises :class:`NotInAssignment` when there is no such assignment and
    :class:`PermissionError` when it belongs to someone else.
    """
    assignment = db.session.get(Assignment, assignment_id)
    if assignment is None:
        raise NotInAssignment("no such assignment")
    if assignment.worker_id != user.id:
        raise PermissionError("this assignment belongs to another worker")
    return assignment


def ordered_pair_ids(assignment_id: int) -> list[int]:
    """Return the assignment's pair ids in their order."""
    return list(
        db.session.scalars(
            select(AssignmentPair.pair_id)
            .where(AssignmentPair.assignment_id == assignment_id)
            .order_by(AssignmentPair.position)
        )
    )


def page_count(n_pairs: int, page_size: int) -> int:
    return max(1, -(-n_pairs // page_size))


def page_pair_ids(assignment: Assignment, page: int) -> list[int]:
    """Return the pair ids on ``page`` (1-based); :class:`NotInAssignment` outside the range."""
    ids = ordered_pair_ids(assignment.id)
    size = assignment.project.page_size
    if not 1 <= page <= page_count(len(ids), size):
        raise NotInAssignment(f"no page {page} in this assignment")
    return ids[(page - 1) * size : page * size]


def record_decision(
    assignment: Assignment, pair_id: int, decision: str, confidence: str | None, *, by: User
) -> DecisionEvent:
    """Append ``by``'s answer for one pair of ``assignment`` in the session's transaction;
    the caller commits. The checks of :func:`~app.review.answers.save.check_answer`; requests go
    through :func:`~app.review.answers.save.save_answer` (fewer statements, autocommit).
    """
    check_answer(decision, confidence, assignment.project.allow_unsure)
    if db.session.get(AssignmentPair, (assignment.id, pair_id)) is None:
        raise NotInAssignment("this pair is not part of the assignment")
    return _append(assignment, pair_id, decision, confidence, by)


def _append(assignment: Assignment, pair_id: int, decision, confidence, by: User):
    """The event through the one writer, refused while paused, marked past a break."""
    if assignment.paused:
        raise AnswersPaused(PAUSED)
    db.session.flush()  # pending changes first: the insert is a Core statement
    connection, project, now = db.session.connection(), assignment.project, utcnow()
    limits = (project.break_minutes, project.break_decisions)
    due = current_session(connection, assignment.id, *limits, now=now).due
    event_id = append_answer(
        connection, assignment.id, pair_id, decision, confidence, by.id, due, now
    )
    return db.session.get(DecisionEvent, event_id)


def clear_answer(
    assignment: Assignment, pair_id: int, *, by: User, version=ANY_VERSION
) -> DecisionEvent:
    """Append a ``cleared`` event for one pair of ``assignment``; the caller commits.

    The earlier answers stay as they were; the pair is unanswered until the next answer.
    ``version`` as for :func:`~app.review.answers.save_answer` (:class:`AnswerChanged` when
    the pair's newest event is another). Raises :class:`DecisionError` when the pair has no
    answer to clear, :class:`~app.review.answers.save.AnswersClosed` once the project is
    closed out.
    """
    if db.session.get(AssignmentPair, (assignment.id, pair_id)) is None:
        raise NotInAssignment("this pair is not part of the assignment")
    newest = newest_events(assignment.id, [pair_id]).get(pair_id)
    if version is not ANY_VERSION and version != (newest.id if newest else None):
        current = None if newest is None or newest.decision == CLEARED else newest
        raise AnswerChanged(
            newest.id if newest else None,
            (current.decision, current.confidence) if current else None,
        )
    if newest is None or newest.decision == CLEARED:
        raise DecisionError("this pair has no answer to clear")
    # the one writer of answers: refused (AnswersClosed) once the project is closed out
    return _append(assignment, pair_id, CLEARED, None, by)


def newest_events(assignment_id: int, pair_ids: Iterable[int]) -> dict[int, DecisionEvent]:
    """The newest decision event of each of ``pair_ids`` that has one, clears included: its
    id is the pair's answer *version* (what a client sends back to detect another tab)."""
    newest = (
        select(func.max(DecisionEvent.id))
        .where(
            DecisionEvent.assignment_id == assignment_id,
            DecisionEvent.pair_id.in_(list(pair_ids)),
        )
        .group_by(DecisionEvent.pair_id)
    )
    events = db.session.scalars(select(DecisionEvent).where(DecisionEvent.id.in_(newest)))
    return {event.pair_id: event for event in events}


def current_decisions(
    assignment_id: int, pair_ids: Iterable[int] | None = None
) -> dict[int, DecisionEvent]:
    """Return the answer (newest decision, unless cleared) of each pair of the assignment.

    Only the pairs of ``pair_ids`` if given; unanswered and cleared pairs are absent.
    """
    where = [DecisionEvent.assignment_id == assignment_id]
    if pair_ids is not None:
        where.append(DecisionEvent.pair_id.in_(list(pair_ids)))
    events = db.session.scalars(
        select(DecisionEvent).where(DecisionEvent.id.in_(current_answer_ids(*where)))
    )
    return {event.pair_id: event for event in events}


def progress(assignment_id: int) -> tuple[int, int]:
    """Return ``(decided, total)``: pairs of the assignment with an answer, and all its pairs."""
    in_assignment = select(AssignmentPair.pair_id).where(
        AssignmentPair.assignment_id == assignment_id
    )
    total = db.session.scalar(select(func.count()).select_from(in_assignment.subquery()))
    answers = current_answer_ids(
        DecisionEvent.assignment_id == assignment_id, DecisionEvent.pair_id.in_(in_assignment)
    )
    decided = db.session.scalar(select(func.count()).select_from(answers.subquery()))
    return decided or 0, total or 0


def tally(assignment_id: int) -> dict[str, int]:
    """Count the current answers by ``decision`` or ``decision-confidence``.

    ``{"same": 3, "same-high": 2, "same-low": 1, "different": 1, ..., "unsure": 0}``.
    """
    counts: Counter[str] = Counter({d: 0 for d in DECISIONS})
    answers = db.session.execute(
        select(DecisionEvent.decision, DecisionEvent.confidence).where(
            DecisionEvent.id.in_(current_answer_ids(DecisionEvent.assignment_id == assignment_id))
        )
    )
    for decision, confidence in answers:
        counts[decision] += 1
        if confidence:
            counts[f"{decision}-{confidence}"] += 1
    return dict(counts)


def resume_page(assignment: Assignment) -> int:
    """Return the first page with an unanswered pair (the last page when all are answered)."""
    ids = ordered_pair_ids(assignment.id)
    size = assignment.project.page_size
    answered = current_decisions(assignment.id).keys()
    for index, pair_id in enumerate(ids):
        if pair_id not in answered:
            return index // size + 1
    return page_count(len(ids), size)


def submit_page(
    assignment: Assignment, page: int, shown: Iterable[int] | None = None
) -> PageSubmitted:
    """Check that every pair on ``page`` is answered and say which page comes next.

    The page's pairs are taken from the assignment itself; ``shown`` (the pair ids the
    client displayed, optional) must all be among them. Raises :class:`PageIncomplete`
    with the unanswered pair ids when a pair of the page has no answer.
    """
    on_page = page_pair_ids(assignment, page)
    if shown is not None:
        foreign = sorted(set(shown) - set(on_page))
        if foreign:
            raise DecisionError(f"pairs not on page {page} of this assignment: {foreign[:10]}")
    answered = current_decisions(assignment.id, on_page).keys()
    unanswered = [p for p in on_page if p not in answered]
    if unanswered:
        raise PageIncomplete(unanswered)
    decided, total = progress(assignment.id)
    next_page = resume_page(assignment) if decided < total else None
    return PageSubmitted(page, next_page, decided, total)
