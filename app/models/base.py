"""Column helpers shared by the models."""

from __future__ import annotations

import datetime as dt

from sqlalchemy import DateTime
from sqlalchemy.orm import Mapped, mapped_column


def utcnow() -> dt.datetime:
    return dt.datetime.now(dt.UTC)


class Timestamped:
    created_at: Mapped[dt.datetime] = mapped_column(DateTime(timezone=True), default=utcnow)


def forbid_updates(model: type) -> None:
    """Make ``model`` append-only at the ORM level: an UPDATE raises."""
    from sqlalchemy import event

    @event.listens_for(model, "before_update")
    def _refuse(_mapper, _connection, target):
        raise PermissionError(f"{type(target).__name__} rows are append-only")
