"""The exports written a chunk at a time while they are sent: bounded memory at any size.

Each function returns the pieces of one export's text; joined, they are the bytes of
:func:`~app.projects.exports.whole.whole_export` (tested equal on SQLite and PostgreSQL).
Rows come from the database :data:`~app.projects.exports.linkage.STREAM_ROWS` at a time
(``yield_per``: a server-side cursor on PostgreSQL) and are written as they come, so neither
the rows nor the text of a million pairs is ever whole in memory:

- ``splink``/``splink_matches`` (1/0): the settled pairs, consensus computed by SQL;
- ``labels`` and ``splink?score=confidence``: each pair's answers from one query in pair
  order (:mod:`app.projects.exports.reviewed`);
- ``linkage``: every decided pair (:func:`~app.projects.exports.linkage.final_pairs`);
- ``clusters`` and ``linked``: the final matches merged chunk by chunk into components over
  the records (:mod:`app.projects.exports.components`: integer arrays, one entry per record),
  then the records in the export's order with their cluster, and for ``linked`` their vault
  values read for each chunk's records only. A record missing from the vault stops the
  stream at its chunk (the download breaks off) with the error the whole path raises.
  Within :func:`components_kept` (the close-out's final exports) both read one computation.
"""

from __future__ import annotations

import io
import itertools
from collections.abc import Callable, Iterator
from contextlib import closing, contextmanager
from contextvars import ContextVar

import numpy as np
from sqlalchemy import func, select

from app.extensions import db
from app.models import Pair, Project, Record, Source, VaultRecord
from app.projects.exports import formats, linkage, peers
from app.projects.exports.components import Components
from app.projects.exports.reviewed import reviewed_outcomes
from app.projects.exports.whole import pair_label_rows, settled_of
from app.projects.progress.finals import final_columns

__all__ = [
    "EDGE_ROWS",
    "cluster_chunks",
    "components_kept",
    "in_chunks",
    "label_chunks",
    "splink_chunks",
]

#: Final matches merged into the components at a time (three integers each).
EDGE_ROWS = 100_000
_KINDS = ("model", "reviewers", "manager")  # bit i of a component's kinds: _KINDS[i]
_LINKED_BY = ["+".join(k for i, k in enumerate(_KINDS) if bits >> i & 1) for bits in range(8)]
_kept: ContextVar[dict | None] = ContextVar("components", default=None)


@contextmanager
def components_kept() -> Iterator[None]:
    """Within the block, each project's final components are computed once: ``clusters`` and
    ``linked`` written one after the other (the close-out's exports: FEBRL4, 0.2 s saved)
    read the same ones."""
    token = _kept.set({})
    try:
        yield
    finally:
        _kept.reset(token)


def in_chunks(write: Callable, rows: Iterator) -> Iterator[str]:
    """``write(out, part, header)`` over ``rows`` a chunk at a time, yielding each text."""
    header = True
    while True:
        part = list(itertools.islice(rows, linkage.STREAM_ROWS))
        if part or header:
            out = io.StringIO()
            write(out, part, header)
            header = False
            yield out.getvalue()
        if len(part) < linkage.STREAM_ROWS:
            return


def label_chunks(project: Project, purpose: str | None) -> Iterator[str]:
    """``labels``: a row per reviewer and reviewed pair (one undecided row if none)."""
    rows = (
        row
        for pair, outcome in reviewed_outcomes(project, purpose)
        for row in pair_label_rows(pair, outcome)
    )
    return in_chunks(formats.write_labels, rows)


def splink_chunks(
    project: Project, purpose: str | None, matches_only: bool, confidence: bool
) -> Iterator[str]:
    """Splink's labels (``splink``, ``splink_matches``), scored 1/0 or by ``confidence``."""
    if confidence:
        rows = (settled_of(p, o, True) for p, o in reviewed_outcomes(project, purpose))
    else:
        rows = linkage.settled_pairs(project, purpose)
    return in_chunks(
        lambda out, part, header: peers.write_splink_labels(out, part, matches_only, header),
        rows,
    )


def cluster_chunks(project: Project, kind: str) -> Iterator[str]:
    """``clusters`` (cluster, source, id, linked_by) or ``linked`` (cluster, linked_by, the
    vault's columns) of every record, in source order."""
    # Read now: the pieces are made after the view returned, when ``project`` has left its
    # session (Flask pops the request's context before a streamed body is sent).
    columns = [a.name for a in project.sensitive] if kind == "linked" else []
    return _cluster_pieces(project.id, kind, columns)


def _cluster_pieces(project_id: int, kind: str, columns: list[str]) -> Iterator[str]:
    numbers, kinds = _final_components(project_id)
    done = 0
    with closing(_partitions(_records_query(project_id), linkage.STREAM_ROWS)) as parts:
        for part in parts:
            at = slice(done, done + len(part))
            clusters, bits = numbers[at].tolist(), kinds[at].tolist()
            linked_by = {c: _LINKED_BY[b] for c, b in zip(clusters, bits, strict=True) if b}
            out = io.StringIO()
            if kind == "clusters":
                keys = [(source, external_id) for source, external_id, _ in part]
                assignment = dict(zip(keys, clusters, strict=True))
                formats.write_clusters(out, assignment, linked_by, not done)
            else:
                pseudonyms = [pseudonym for *_, pseudonym in part]
                vault = _vault(project_id, pseudonyms) if columns else {p: {} for p in pseudonyms}
                members = list(zip(pseudonyms, clusters, strict=True))
                formats.write_linked_dataset(out, members, vault, columns, linked_by, not done)
            done += len(part)
            yield out.getvalue()
    if not done:  # no record: the header alone, as the whole path writes it
        out = io.StringIO()
        if kind == "clusters":
            formats.write_clusters(out, {}, {})
        else:
            formats.write_linked_dataset(out, [], {}, columns, {})
        yield out.getvalue()


def _records_query(project_id: int, *columns):
    """The project's records in the exports' order (source label, then position)."""
    columns = columns or (
        func.coalesce(Source.dataset, Source.label), Record.external_id, Record.pseudonym
    )  # fmt: skip
    return (
        select(*columns)
        .join(Source, Source.id == Record.source_id)
        .where(Record.project_id == project_id)
        .order_by(Source.label, Record.position)
    )


def _partitions(query, size: int) -> Iterator[list]:
    """The rows of ``query`` in lists of ``size`` (a server-side cursor on PostgreSQL)."""
    return linkage.driver_rows(query, size)


def _final_components(project_id: int) -> tuple[np.ndarray, np.ndarray]:
    """Each record's cluster number (records in the exports' order) and its cluster's kinds
    of linking decision, from the final matches read :data:`EDGE_ROWS` at a time."""
    kept = _kept.get()
    if kept is None:
        return _components_of(project_id)
    if project_id not in kept:
        kept[project_id] = _components_of(project_id)
    return kept[project_id]


def _components_of(project_id: int) -> tuple[np.ndarray, np.ndarray]:
    parts = _partitions(_records_query(project_id, Record.id), EDGE_ROWS)
    ids = np.concatenate([np.zeros(0, np.int64)] + [np.array(p, np.int64)[:, 0] for p in parts])
    order = np.argsort(ids, kind="stable")
    ordered = ids[order]
    found = Components(len(ids))
    finals = final_columns(project_id)
    edges = (Pair.record_a_id, Pair.record_b_id, finals.decided_by)
    matches = finals.query(project_id, *edges).where(finals.decision == "match")
    bit = {k: 1 << i for i, k in enumerate(_KINDS)}
    for part in _partitions(matches, EDGE_ROWS):
        a, b, by = zip(*part, strict=True)
        nodes_a = order[np.searchsorted(ordered, np.array(a, dtype=np.int64))]
        nodes_b = order[np.searchsorted(ordered, np.array(b, dtype=np.int64))]
        found.add(nodes_a, nodes_b, np.array([bit[k] for k in by], dtype=np.uint8))
    return found.numbers(), found.node_kinds()


def _vault(project_id: int, pseudonyms: list[str]) -> dict[str, dict]:
    """The vault values of these records (one chunk's) by pseudonym."""
    rows = db.session.execute(
        select(VaultRecord.pseudonym, VaultRecord.values).where(
            VaultRecord.project_id == project_id, VaultRecord.pseudonym.in_(pseudonyms)
        )
    )
    return {pseudonym: values for pseudonym, values in rows}
