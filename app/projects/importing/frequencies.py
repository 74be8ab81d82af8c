"""The name counts a project's frequency file (or MINDFIRL's internal pair file) brought."""

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
