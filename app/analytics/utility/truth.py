"""Ground truth of a project's pairs: from a vault column or from an uploaded truth file.

Both paths end in one shape, ``{pair id: True (same entity) | False}``, which
:mod:`app.analytics.utility.risk_utility` scores workers against:

- :func:`truth_from_vault`: a non-identifying column kept in the vault (the generator's
  ``cluster_id``), read as ``{record id: cluster}``; a pair is a match when both records have a
  cluster and it is the same. By default the column the manager marked as ground truth on
  import (``ProjectAttribute.truth``), else one named like :data:`CLUSTER_COLUMNS`; a request
  may name another. Nothing is stored or changed.
- :func:`truth_from_file`: an uploaded CSV with a header, either per record
  (``record_id`` or ``id``, a ``cluster_id``/``cluster``/``true_id`` column and, for two
  sources, an optional ``source`` column ``A``/``B``) or per pair (``pair_id`` and ``match``,
  1 or 0: the pair-file ids, e.g. the ``section2.csv`` study pairs' PairID and truth column).

Error messages name lines and columns, never a value of the file.
"""

from __future__ import annotations

from collections.abc import Mapping

from flask import current_app
from sqlalchemy import select

from app.core.disclosure import CLUSTER_COLUMNS
from app.extensions import db
from app.limits import Limits
from app.models import Pair, Project, Record, Source, VaultRecord
from app.projects.reading.csvio import CsvImportError, header_row, open_rows

__all__ = [
    "CLUSTER_COLUMNS",
    "TruthError",
    "default_truth_column",
    "resolve_truth",
    "pairs_from_clusters",
    "truth_from_file",
    "truth_from_vault",
]

ID_COLUMNS = ("record_id", "id")
MAX_TRUTH_BYTES = 64 << 20


class TruthError(ValueError):
    """Ground truth that cannot be used; the message says why (never with a value)."""


def resolve_truth(
    project: Project, column: str | None = None, data: bytes | None = None
) -> tuple[dict[int, bool], str]:
    """The pair truth and where it came from: an uploaded file, the named vault column, or
    the project's cluster-like vault column; :class:`TruthError` when there is none."""
    if data:
        return truth_from_file(project, data), "the uploaded truth file"
    column = column or default_truth_column(project)
    if not column:
        raise TruthError(
            "this project has no ground-truth column (none was marked on import, and no "
            "non-identifying column is named like cluster_id): upload a truth file"
        )
    return truth_from_vault(project, column), f"the column {column!r}"


def default_truth_column(project: Project) -> str | None:
    """The project's ground-truth column: the one the manager marked on import, else (for
    projects made before that flag) the non-identifying column that looks like a cluster id."""
    marked = next((a.name for a in project.sensitive if a.truth), None)
    if marked:
        return marked
    names = {a.name.lower(): a.name for a in project.sensitive}
    return next((names[c] for c in CLUSTER_COLUMNS if c in names), None)


def pairs_from_clusters(project: Project, clusters: Mapping[int, str]) -> dict[int, bool]:
    """``{pair id: same cluster}`` for the pairs whose two records both have a cluster."""
    rows = db.session.execute(
        select(Pair.id, Pair.record_a_id, Pair.record_b_id).where(Pair.project_id == project.id)
    )
    return {
        pid: clusters[a] == clusters[b] for pid, a, b in rows if a in clusters and b in clusters
    }


def truth_from_vault(project: Project, column: str) -> dict[int, bool]:
    """Pair truth from the vault column ``column`` (one of the project's sensitive columns)."""
    if column not in {a.name for a in project.sensitive}:
        raise TruthError(f"{column!r} is not one of this project's non-identifying columns")
    by_pseudonym = {
        v.pseudonym: v.values.get(column)
        for v in db.session.scalars(select(VaultRecord).where(VaultRecord.project_id == project.id))
    }
    clusters = {}
    for record_id, pseudonym in db.session.execute(
        select(Record.id, Record.pseudonym).where(Record.project_id == project.id)
    ):
        value = by_pseudonym.get(pseudonym)
        if value not in (None, ""):
            clusters[record_id] = str(value)
    if not clusters:
        raise TruthError(f"no record has a value in column {column!r}")
    return pairs_from_clusters(project, clusters)


def truth_from_file(project: Project, data: bytes) -> dict[int, bool]:
    """Pair truth from an uploaded CSV (per record or per pair, see the module docstring)."""
    if len(data) > MAX_TRUTH_BYTES:
        raise TruthError("the truth file is larger than 64 MiB")
    try:
        with open_rows(data) as stream:
            header_line, header = header_row(stream)
            names = [h.strip().lower() for h in header]
            rows = list(stream.rows)
    except CsvImportError as exc:
        raise TruthError(f"the truth file cannot be read: {exc}") from None
    limits = Limits.of(current_app.config)
    for line, fields in [(header_line, header), *rows]:
        problem = limits.row_problem(fields)
        if problem is not None:
            raise TruthError(f"line {line}: {problem}")
    if "pair_id" in names and "match" in names:
        return _pair_labels(project, names, rows)
    id_col = next((names.index(c) for c in ID_COLUMNS if c in names), None)
    cluster_col = next((names.index(c) for c in CLUSTER_COLUMNS if c in names), None)
    if id_col is None or cluster_col is None:
        raise TruthError(
            "the truth file needs a header with 'record_id' (or 'id') and 'cluster_id' "
            "(or cluster, true_id, entity_id, truth), or 'pair_id' and 'match'"
        )
    source_col = names.index("source") if "source" in names else None
    records = _records(project)
    clusters: dict[int, str] = {}
    for line, fields in rows:
        if max(id_col, cluster_col, source_col or 0) >= len(fields):
            raise TruthError(f"line {line}: fewer fields than the header")
        external, cluster = fields[id_col].strip(), fields[cluster_col].strip()
        problem = limits.id_problem(external)
        if problem is not None:
            raise TruthError(f"line {line}, column {names[id_col]!r}: {problem}")
        sources = [fields[source_col].strip()] if source_col is not None else None
        for label, record_id in records.get(external, {}).items():
            if cluster and (sources is None or label in sources):
                clusters[record_id] = cluster
    if not clusters:
        raise TruthError("no id in the truth file is a record of this project")
    return pairs_from_clusters(project, clusters)


def _records(project: Project) -> dict[str, dict[str, int]]:
    """``{external id: {source label: record id}}``."""
    found: dict[str, dict[str, int]] = {}
    for record_id, external, label in db.session.execute(
        select(Record.id, Record.external_id, Source.label)
        .join(Source, Source.id == Record.source_id)
        .where(Record.project_id == project.id)
    ):
        found.setdefault(external, {})[label] = record_id
    return found


def _pair_labels(project: Project, names: list[str], rows) -> dict[int, bool]:
    pid_col, match_col = names.index("pair_id"), names.index("match")
    labels: dict[str, bool] = {}
    for line, fields in rows:
        if max(pid_col, match_col) >= len(fields):
            raise TruthError(f"line {line}: fewer fields than the header")
        mark = fields[match_col].strip()
        if mark not in ("0", "1"):
            raise TruthError(f"line {line}, column 'match': expected 1 (same) or 0 (different)")
        labels[fields[pid_col].strip()] = mark == "1"
    truth = {
        pid: labels[ext]
        for pid, ext in db.session.execute(
            select(Pair.id, Pair.external_id).where(Pair.project_id == project.id)
        )
        if ext in labels
    }
    if not truth:
        raise TruthError("no pair_id in the truth file is a pair of this project")
    return truth
