"""Store the name counts of a frequency file (or a JSON project's ``name_frequencies``)."""

from __future__ import annotations

from sqlalchemy import insert

from app.extensions import db
from app.models import NameFrequency
from app.projects.reading.pairfile import NameFrequencies

__all__ = ["store_frequencies"]


def store_frequencies(project_id: int, frequencies: NameFrequencies) -> int:
    """Insert the ``F`` (first name) and ``L`` (last name) counts for ``project_id``; how
    many. The workers' markers read them (:mod:`app.review.frequencies`). Flushes nothing."""
    rows = [
        {"project_id": project_id, "kind": kind, "name": name[:200], "count": count}
        for kind, table in (("F", frequencies.first), ("L", frequencies.last))
        for name, count in table.items()
    ]
    if rows:
        db.session.execute(insert(NameFrequency), rows)
    return len(rows)
