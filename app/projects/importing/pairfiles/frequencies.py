"""The name counts a project's frequency file (or MINDFIRL's pair files) brought.

Every kind of project takes a frequency file (``F|L,name,count``): its counts are what the
workers' name-frequency markers show for the first- and last-name attributes (found by name,
:func:`app.core.disclosure.name_columns`), instead of counts taken from the project's own
records.
"""

from __future__ import annotations

from sqlalchemy import select

from app.core.disclosure import name_columns
from app.extensions import db
from app.models import NameFrequency, ProjectAttribute

__all__ = ["name_frequencies"]


def name_frequencies(project_id: int) -> dict[str, dict[str, int]]:
    """Name counts by attribute: ``{"first_name": {"LYNN": 100}, "last_name": {...}}``.

    ``F`` counts belong to the project's first-name attribute and ``L`` counts to its
    last-name attribute (found by name, e.g. ``first_name`` / ``surname``); kinds whose
    attribute the project lacks are left out.
    """
    columns = db.session.scalars(
        select(ProjectAttribute.name).where(ProjectAttribute.project_id == project_id)
    )
    targets = dict(zip("FL", name_columns(columns), strict=True))
    out: dict[str, dict[str, int]] = {}
    rows = db.session.execute(
        select(NameFrequency.kind, NameFrequency.name, NameFrequency.count).where(
            NameFrequency.project_id == project_id
        )
    )
    for kind, name, count in rows:
        if targets.get(kind) is not None:
            out.setdefault(targets[kind], {})[name] = count
    return out
