"""Anonymity-set indexes of a project's sources, built once and kept per process.

Records do not change after import; a change bumps ``Project.records_version``, which is
part of the cache key, so a stale index is never used.
"""

from __future__ import annotations

import threading
from collections import OrderedDict

from flask import current_app
from sqlalchemy import select

from app.core.anonymity import AnonymityIndex
from app.core.attributes import AttributeType, format_date
from app.extensions import db
from app.models import Project, Record

MAX_CACHED = 8
_lock = threading.Lock()


def _cache() -> OrderedDict:
    # One cache per application object, so two apps (tests) never share an index.
    return current_app.extensions.setdefault("mindfirl_indexes", OrderedDict())


def source_index(project: Project, source_id: int) -> AnonymityIndex:
    """The anonymity-set index of one source of ``project``, building it on first use."""
    key = (project.id, source_id, project.records_version)
    cache = _cache()
    with _lock:
        if key in cache:
            cache.move_to_end(key)
            return cache[key]
    index = build_index(project, source_id)
    with _lock:
        # Keep the first index built: callers rely on one object per source (the pair model
        # tells "same source" by identity).
        index = cache.setdefault(key, index)
        while len(cache) > MAX_CACHED:
            cache.popitem(last=False)
    return index


def build_index(project: Project, source_id: int) -> AnonymityIndex:
    attributes = project.identifying
    kinds = {a.name: AttributeType(a.kind) for a in attributes}
    columns: dict[str, list] = {a.name: [] for a in attributes}
    rows = db.session.execute(
        select(Record.values).where(Record.source_id == source_id).order_by(Record.position)
    ).scalars()
    for values in rows:
        for name, column in columns.items():
            value = values.get(name)
            # The index normalises what it is given; a stored date is already MMDDYYYY.
            if value is not None and kinds[name] is AttributeType.DATE:
                value = format_date(value)
            column.append(value)
    return AnonymityIndex.build(columns, kinds)
