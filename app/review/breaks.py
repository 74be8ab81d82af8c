"""Breaks: when a reviewing session has gone on long enough to remind the reviewer.

A session is a run of an assignment's decisions with less than ``BREAK_GAP_MINUTES`` between
consecutive ones. Past the project's session length (``break_minutes``) or number of
decisions (``break_decisions``) the worker is reminded to take a break, and the decisions
made past it are marked (``DecisionEvent.past_break``), so the quality figures can tell them
apart (docs/quality.md).
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Sequence
from dataclasses import dataclass

from flask import current_app
from sqlalchemy import select

from app.models import DecisionEvent
from app.models.base import utcnow

#: The newest decisions read to find where the session began.
LOOK_BACK = 2000


@dataclass(frozen=True)
class Session:
    """The current session: when it began, its decisions so far, whether a break is due."""

    minutes: float
    decisions: int
    due: bool

    def as_dict(self) -> dict:
        return {"due": self.due, "minutes": round(self.minutes, 1), "decisions": self.decisions}


def session_of(
    times: Sequence[dt.datetime], now: dt.datetime, gap: dt.timedelta
) -> tuple[dt.datetime, int]:
    """Where the session holding ``now`` began and how many decisions it holds before now.

    ``times`` are the earlier decisions' times, newest first. A decision less than ``gap``
    after the one before continues its session.
    """
    start, count, later = now, 0, now
    for at in times:
        if later - at >= gap:
            break
        start, count, later = at, count + 1, at
    return start, count


def is_due(start: dt.datetime, count: int, now: dt.datetime, minutes, decisions) -> bool:
    """Whether a decision at ``now`` after ``count`` in a session begun at ``start`` is past
    the project's limits (None: no such limit)."""
    long = minutes is not None and (now - start) >= dt.timedelta(minutes=minutes)
    many = decisions is not None and count >= decisions
    return long or many


def current_session(connection, assignment_id: int, minutes, decisions, now=None) -> Session:
    """The assignment's session as of ``now``: a decision made now would be past the break
    when ``due``. No query when the project sets no limit. ``connection``: a connection or a
    session (what runs the one query)."""
    now = now or utcnow()
    if minutes is None and decisions is None:
        return Session(0.0, 0, False)
    times = [
        _aware(at)
        for at in connection.execute(
            select(DecisionEvent.at)
            .where(DecisionEvent.assignment_id == assignment_id)
            .order_by(DecisionEvent.id.desc())
            .limit(LOOK_BACK)
        ).scalars()
    ]
    gap = dt.timedelta(minutes=current_app.config.get("BREAK_GAP_MINUTES", 10))
    start, count = session_of(times, now, gap)
    due = is_due(start, count, now, minutes, decisions)
    return Session((now - start).total_seconds() / 60, count, due)


def _aware(at: dt.datetime) -> dt.datetime:
    """SQLite gives naive UTC datetimes back."""
    return at if at.tzinfo else at.replace(tzinfo=dt.UTC)
