"""Anonymity-set indexes of a project's sources, built once and kept per process.

Records do not change after import; a change bumps ``Project.records_version``, which is
part of the cache key, so a stale index is never used. The import stores each source's
index (:func:`store_indexes`, a :class:`~app.models.SourceIndex` row), so that a process
missing it loads it (~10 times faster than building it from the records: a million records
otherwise take seconds to read, normalise and rank) and builds it only when none is stored
for the current records.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Mapping, Sequence

from flask import current_app
from sqlalchemy import delete, select
from sqlalchemy.orm import aliased

from app.core.disclosure import AttributeType, format_date
from app.core.kapr import AnonymityIndex
from app.core.quality import stand_in
from app.database import pg_rows
from app.extensions import db
from app.models import EvidenceModel, Project, Record, Source, SourceIndex

MAX_CACHED = 8
_lock = threading.Lock()


def _cache() -> OrderedDict:
    # One cache per application object, so two apps (tests) never share an index.
    return current_app.extensions.setdefault("mindfirl_indexes", OrderedDict())


def source_index(project: Project, source_id: int) -> AnonymityIndex:
    """The anonymity-set index of one source of ``project``, building it on first use."""
    return index_for(project.id, project.records_version, source_id, project.identifying)


def source_indexes(project_id: int, records_version: int, sources, attributes) -> tuple:
    """The (left, right) indexes of a pair whose records come from ``sources`` (two source
    ids): one object when both are the same source (the pair model tells by identity)."""
    left = index_for(project_id, records_version, sources[0], attributes)
    if sources[1] == sources[0]:
        return left, left
    return left, index_for(project_id, records_version, sources[1], attributes)


def stand_in_indexes(project_id: int, records_version: int, sources, attributes) -> tuple:
    """The (left, right) indexes a synthetic check's rows are priced on: those of the real
    sources its checks-project sources stand for, as a record of them sees them
    (:class:`~app.core.quality.StandIn`)."""
    real = _real_sources(project_id, tuple(sources))
    left, right = source_indexes(project_id, records_version, real, attributes)
    return stand_in(left), stand_in(right)


def _real_sources(project_id: int, shadow: tuple[int, int]) -> tuple[int, int]:
    """The project's sources that two sources of its checks project stand for (same label)."""
    known = current_app.extensions.setdefault("mindfirl_check_sources", {})
    missing = [s for s in shadow if (project_id, s) not in known]
    if missing:
        checks, real = aliased(Source), aliased(Source)
        rows = db.session.execute(
            select(checks.id, real.id)
            .join(Project, Project.id == checks.project_id)
            .join(real, (real.project_id == Project.checks_of) & (real.label == checks.label))
            .where(checks.id.in_(missing))
        ).all()
        # a checks source never changes what it stands for
        known.update(((project_id, checks_id), real_id) for checks_id, real_id in rows)
    return known[project_id, shadow[0]], known[project_id, shadow[1]]


def records_not_in_memory(project: Project) -> int:
    """How many of ``project``'s records have no index in this process yet (a first pricing
    loads or builds it: about a second per 500,000 records loaded)."""
    rows = db.session.execute(
        select(Source.id, Source.record_count).where(Source.project_id == project.id)
    ).all()
    cache = _cache()
    with _lock:
        return sum(
            n
            for source_id, n in rows
            if (project.id, source_id, project.records_version) not in cache
        )


def index_for(
    project_id: int, records_version: int, source_id: int, attributes: Sequence
) -> AnonymityIndex:
    """:func:`source_index` from plain values; ``attributes`` (``.name``, ``.kind``) are the
    project's identifying ones, read only when the index is built."""
    key = (project_id, source_id, records_version)
    cache = _cache()
    with _lock:
        if key in cache:
            cache.move_to_end(key)
            return cache[key]
    index = stored_index(source_id, records_version)
    if index is None:
        index = build_index(attributes, source_id)
    with _lock:
        # Keep the first index built: callers rely on one object per source (the pair model
        # tells "same source" by identity).
        index = cache.setdefault(key, index)
        while len(cache) > MAX_CACHED:
            cache.popitem(last=False)
    return index


def stored_index(source_id: int, records_version: int) -> AnonymityIndex | None:
    """The index :func:`store_indexes` stored for these records, or None.

    On PostgreSQL the bytes come in the binary protocol: as text, a ``bytea`` of tens of
    megabytes travels hex-encoded at twice its size and is decoded again (35 MB: 0.34 s
    against 0.14 s)."""
    connection = db.session.connection(bind_arguments={"mapper": SourceIndex})
    if connection.dialect.name == "postgresql":
        sql = (
            "SELECT data FROM source_indexes"
            " WHERE source_id = %(source)s AND records_version = %(version)s"
        )
        params = {"source": source_id, "version": records_version}
        rows = pg_rows(connection, sql, params, binary=True)
        data = rows[0][0] if rows else None
    else:
        data = connection.scalar(
            select(SourceIndex.data).where(
                SourceIndex.source_id == source_id,
                SourceIndex.records_version == records_version,
            )
        )
    return None if data is None else AnonymityIndex.load(bytes(data))


def store_indexes(
    project: Project, columns: Mapping[int, Mapping[str, list]] | None = None
) -> None:
    """Build and store the index of each of ``project``'s sources (its records just written),
    with the ``pair`` model's count tables for a ``pair`` project.

    ``columns``: what the import just wrote of a source, source id → attribute name → one
    stored (normalised) value per record in position order, so its index is built without
    reading the values back (a million records: seconds of JSON extraction and a row per
    record in memory); a source not in it is read from its records.

    Not kept in memory: the import may still roll back, and another project could then get
    the same ids (the stored rows go with the transaction). Flushes."""
    db.session.flush()
    drop_stored_indexes(project.id)
    attributes = project.identifying
    if not attributes:
        return
    given = columns or {}
    sources = db.session.scalars(select(Source.id).where(Source.project_id == project.id))
    for source_id in sources.all():
        index = build_index(attributes, source_id, given.get(source_id))
        if project.evidence_model == EvidenceModel.PAIR:
            index.pair_tables  # noqa: B018 (made now and stored: never in a worker's request)
        db.session.add(
            SourceIndex(
                source_id=source_id,
                project_id=project.id,
                records_version=project.records_version,
                data=index.dump(),
            )
        )
    db.session.flush()


def drop_stored_indexes(project_id: int) -> None:
    """Delete the stored indexes of a project (they hold its normalised values)."""
    db.session.execute(delete(SourceIndex).where(SourceIndex.project_id == project_id))


def build_index(
    attributes: Sequence, source_id: int, given: Mapping[str, list] | None = None
) -> AnonymityIndex:
    """The index of the source's records; ``given``: their stored values by attribute (see
    :func:`store_indexes`), read from the records when None or not every attribute's."""
    kinds = {a.name: AttributeType(a.kind) for a in attributes}
    if given is not None and set(kinds) <= set(given):
        columns = {name: list(given[name]) for name in kinds}
    else:
        columns = _stored_columns(kinds, source_id)
    for name, kind in kinds.items():
        if kind is AttributeType.DATE:
            # The index normalises what it is given; a stored date is already MMDDYYYY.
            dates = {v: format_date(v) for v in set(columns[name]) if v is not None}
            columns[name] = [None if v is None else dates[v] for v in columns[name]]
    return AnonymityIndex.build(columns, kinds)


def _stored_columns(kinds: Mapping[str, AttributeType], source_id: int) -> dict[str, list]:
    """The source's stored values, one list per attribute in position order."""
    # The database extracts each attribute from the JSON (1M rows: decoding every record's
    # dict in Python took most of the build); rows are then transposed to columns.
    query = (
        select(*(Record.values[name].as_string() for name in kinds))
        .where(Record.source_id == source_id)
        .order_by(Record.position)
    )
    rows = db.session.connection(bind_arguments={"mapper": Record}).execute(query).all()
    values = list(zip(*rows, strict=True)) if rows else [()] * len(kinds)
    return {name: list(column) for name, column in zip(kinds, values, strict=True)}
