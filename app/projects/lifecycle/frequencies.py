"""Store the name counts of a frequency file (or a JSON project's ``name_frequencies``)."""

from __future__ import annotations

from sqlalchemy import insert

from app.extensions import db
from app.models import NameFrequency
from app.projects.reading.pairfile import MAX_COUNTED_NAME, NameFrequencies

__all__ = ["store_frequencies"]


def store_frequencies(project_id: int, frequencies: NameFrequencies) -> int:
    """Insert the ``F`` (first name) and ``L`` (last name) counts for ``project_id``; how
    many. The workers' markers read them (:mod:`app.review.frequencies`). Flushes nothing.

    A name longer than ``MAX_COUNTED_NAME`` (the column's 200 characters; a frequency file or
    a JSON project refuses one) gets no count: cut, two names would be one.
    """
    rows = [
        {"project_id": project_id, "kind": kind, "name": name, "count": count}
        for kind, table in (("F", frequencies.first), ("L", frequencies.last))
        for name, count in table.items()
        if len(name) <= MAX_COUNTED_NAME
    ]
    if rows:
        db.session.execute(insert(NameFrequency), rows)
    return len(rows)
