"""Per-process caches of what does not change within a project: its identifying attributes.

A project's attribute schema is written once, when the project is created, and never edited.
The cache key is the project's id *and* its creation time, so a project deleted and another
created under the same id (SQLite reuses ids) is never answered from the old entry.
"""

from __future__ import annotations

import datetime as dt
import threading
from collections import OrderedDict
from dataclasses import dataclass, field

from flask import current_app
from sqlalchemy import select

from app.core.disclosure import AttributeType
from app.extensions import db
from app.models import ProjectAttribute
from app.review.grid.state import Attribute

MAX_CACHED = 256
_lock = threading.Lock()


@dataclass(frozen=True)
class Schema:
    """A project's identifying attributes in display order, by name and by id."""

    attributes: tuple[Attribute, ...]
    by_name: dict[str, Attribute] = field(init=False)
    by_id: dict[int, Attribute] = field(init=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "by_name", {a.name: a for a in self.attributes})
        object.__setattr__(self, "by_id", {a.id: a for a in self.attributes})


def project_schema(project_id: int, created_at: dt.datetime | None) -> Schema:
    """The identifying attributes of the project, from the cache or one query."""
    cache = current_app.extensions.setdefault("mindfirl_schemas", OrderedDict())
    key = (project_id, created_at)
    with _lock:
        schema = cache.get(key)
        if schema is not None:
            cache.move_to_end(key)
            return schema
    rows = db.session.execute(
        select(ProjectAttribute.id, ProjectAttribute.name, ProjectAttribute.kind)
        .where(ProjectAttribute.project_id == project_id, ProjectAttribute.identifying)
        .order_by(ProjectAttribute.position)
    ).all()
    schema = Schema(tuple(Attribute(i, name, AttributeType(kind)) for i, name, kind in rows))
    with _lock:
        cache[key] = schema
        while len(cache) > MAX_CACHED:
            cache.popitem(last=False)
    return schema
