"""Turn a linker's pairs (source names and record ids, as in its files) into our record ids.

A link project's two sources are ``A`` and ``B``; a linker names them its own way (Splink's
``source_dataset``: the names its input tables were registered under). The names are
matched to the sources once, kept on each source (``Source.dataset``) and written back by
the exports, so labels join to the linker's tables. The match is made per file, in this order:
names given by the manager; the names kept from an earlier round; the labels themselves
(``A``/``B``: the application's own predictions); otherwise the one assignment under which
the file's record ids are found. So a later round may come from another linker, or from the
application's own scoring, under other names; the names kept for the exports stay the first
round's.
Splink writes a pair either way round (its left record is the one with the smaller source
name), so each pair is turned to ``(A, B)``. Problems name rows, never ids or values.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
from flask import current_app
from sqlalchemy import inspect, select

from app.extensions import db
from app.models import Project, ProjectKind, Record, Source
from app.projects.reading.predictions import (
    ScoredPairs,
    distinct,
    read_predictions,
    string_array,
)
from app.projects.triage.store import existing_keys, pair_keys

__all__ = ["Resolved", "ScoredPairsError", "keep_datasets", "read_scores", "resolve_pairs"]

MAX_PROBLEMS = 20
_SAMPLE = 2_000


class ScoredPairsError(ValueError):
    """The pairs do not fit the project; ``problems`` names rows and columns."""

    def __init__(self, problems: Sequence[str]):
        self.problems = list(problems)
        super().__init__("; ".join(self.problems[:5]))


@dataclass(frozen=True)
class Resolved:
    """Record ids per pair (``a`` of source A), the kept rows and those already present."""

    a: np.ndarray
    b: np.ndarray
    rows: np.ndarray  # indices into the input of the pairs kept
    present: int  # pairs skipped: the project has them already
    datasets: dict[str, str]  # source label -> the linker's name for it


def read_scores(source) -> ScoredPairs:
    """A scored pairs file (a path or its bytes) read within the configured limits
    (``MAX_SCORED_PAIRS`` pairs, ids of ``MAX_RECORD_ID_CHARS``)."""
    config = current_app.config
    return read_predictions(
        source, max_rows=config.get("MAX_SCORED_PAIRS"), max_id=config["MAX_RECORD_ID_CHARS"]
    )


def _ids(source: Source) -> tuple[pa.Array, np.ndarray]:
    """The source's record ids as uploaded (an Arrow string array) and ours, aligned: the
    driver's tuples straight into Arrow and numpy, no ORM row per record (a column by a
    comprehension: ``zip(*rows)`` on a million tuples takes ~10× longer)."""
    query = select(Record.external_id, Record.id).where(Record.source_id == source.id)
    result = db.session.connection(bind_arguments={"mapper": inspect(Record)}).execute(query)
    try:
        rows = result.cursor.fetchall()
    finally:
        result.close()
    if not rows:
        return pa.array([], pa.string()), np.zeros(0, dtype=np.int64)
    external = pa.array([row[0] for row in rows], pa.string())
    return external, np.array([row[1] for row in rows], dtype=np.int64)


def _lookup(values, table: tuple[pa.Array, np.ndarray]) -> np.ndarray:
    """Our record id of each external id in ``values`` (strings or an Arrow string array;
    -1 when the source has none)."""
    external, ours = table
    if not len(values):
        return np.zeros(0, dtype=np.int64)
    values = string_array(values)
    found = pc.index_in(values, value_set=external)
    where = pc.fill_null(found, -1).to_numpy(zero_copy_only=False).astype(np.int64)
    return np.where(where >= 0, ours[np.maximum(where, 0)] if len(ours) else -1, -1)


def _names(project: Project, id_l, id_r, source_l, source_r, given, ids) -> dict[str, str]:
    """The linker's name of each source label in this file (``{}`` when it names none).

    Tried in order, the first that names every source of the file: the names the manager
    gives for this file; the names kept from an earlier round; the labels themselves (the
    application's own predictions say ``A``/``B``); else the one assignment under which the
    file's record ids are found. Names given that do not fit are refused, never passed over.
    """
    if source_l is None:
        return {}
    names = distinct(source_l, source_r)
    labels = [s.label for s in project.sources]
    if len(names) > len(labels):
        raise ScoredPairsError(
            [f"the file names {len(names)} sources; this project has {len(labels)}"]
        )

    def fits(chosen: Mapping[str, str]) -> bool:
        return set(chosen) <= set(labels) and set(names) <= set(chosen.values())

    if given:
        if not fits(given):
            shown = ", ".join(f"{k}={v!r}" for k, v in given.items())
            raise ScoredPairsError(
                [f"the source names given ({shown}) are not the file's, or not this project's"]
            )
        return dict(given)
    kept = {s.label: s.dataset for s in project.sources if s.dataset}
    for chosen in (kept, {label: label for label in labels}):
        if chosen and fits(chosen):
            return {k: v for k, v in chosen.items() if v in names}
    return _by_ids(labels, names, id_l, id_r, source_l, source_r, ids)


def _by_ids(labels, names, id_l, id_r, source_l, source_r, ids) -> dict[str, str]:
    """Name each source by where the file's ids are found; refuse when that is ambiguous."""
    if len(labels) == 1:
        return {labels[0]: names[0]}
    sample: dict[str, set[str]] = {name: set() for name in names}
    for side_names, side_ids in ((source_l, id_l), (source_r, id_r)):
        head = zip(side_names[:_SAMPLE].to_pylist(), side_ids[:_SAMPLE].to_pylist(), strict=True)
        for name, rid in head:
            sample[name].add(rid)
    first, second = labels
    if len(names) == 1:
        options = [{first: names[0]}, {second: names[0]}]
    else:
        options = [{first: names[0], second: names[1]}, {first: names[1], second: names[0]}]
    scores = [
        sum(int((_lookup(sorted(sample[n]), ids[label]) >= 0).sum()) for label, n in o.items())
        for o in options
    ]
    if not any(scores):
        raise ScoredPairsError(
            [
                "the file's source names do not match this project's sources, and none of "
                "its record ids is one of the project's"
            ]
        )
    if scores[0] == scores[1]:
        raise ScoredPairsError(
            [
                "cannot tell which of the file's sources is A and which is B from their "
                "record ids: name them (sources A=<name>, B=<name>)"
            ]
        )
    return options[int(scores[1] > scores[0])]


def resolve_pairs(
    project: Project,
    id_l: Sequence[str] | pa.Array,
    id_r: Sequence[str] | pa.Array,
    source_l: Sequence[str] | pa.Array | None = None,
    source_r: Sequence[str] | pa.Array | None = None,
    *,
    sources: Mapping[str, str] | None = None,
    item: str = "row",
    columns: tuple[str, str] = ("unique_id_l", "unique_id_r"),
    repeats: str = "error",
) -> Resolved:
    """Our record ids for each pair (``a`` in source A); raise :class:`ScoredPairsError`.

    ``sources`` names the linker's source of each label (``{"A": "dfa", "B": "dfb"}``) when
    the file's ids cannot tell. Pairs the project holds already are skipped and counted;
    a record paired with itself or an unknown id is a problem, and so is a pair given twice
    unless ``repeats="drop"`` (then the first is kept). Problems say ``item`` and its number
    (``row 3``, ``pair 3``) and the id's ``columns``, never a value.
    """
    id_l, id_r = string_array(id_l), string_array(id_r)
    if source_l is not None:
        source_l, source_r = string_array(source_l), string_array(source_r)
    by_label = {s.label: s for s in project.sources}
    ids = {label: _ids(source) for label, source in by_label.items()}
    dedupe = project.kind == ProjectKind.DEDUPE
    names = _names(project, id_l, id_r, source_l, source_r, sources, ids)
    n, labels = len(id_l), sorted(by_label)
    if source_l is None:
        left = np.zeros(n, dtype=np.int64)
        right = np.zeros(n, dtype=np.int64) if dedupe else np.ones(n, dtype=np.int64)
    else:
        order = [names.get(label, "") for label in labels]
        left = _position(source_l, order)
        right = _position(source_r, order)
    problems: list[str] = []
    flag = _flagger(problems, item)
    if not dedupe:
        flag(left == right, "both records are from the same source")
    with ThreadPoolExecutor(max_workers=1) as pool:  # Arrow's look-up lets go of the GIL:
        on_left = pool.submit(_side, id_l, left, labels, ids)  # the two sides on two cores
        y = _side(id_r, right, labels, ids)
        x = on_left.result()
    flag(x < 0, "unknown record id", columns[0])
    flag((y < 0) & (x >= 0), "unknown record id", columns[1])
    flag((x == y) & (x >= 0), "a record cannot be paired with itself")
    if problems:
        raise ScoredPairsError(problems)
    swap = left > right  # Splink's left record may be B's: every pair is stored (A, B)
    a, b = np.where(swap, y, x), np.where(swap, x, y)
    keys = pair_keys(a, b, dedupe)
    first = _firsts(keys)
    if repeats != "drop" and not first.all():
        flag(~first, f"the same pair as an earlier {item}")
        raise ScoredPairsError(problems)
    present = _present(keys, existing_keys(project.id, dedupe))
    rows = np.flatnonzero(first & ~present)
    return Resolved(a[rows], b[rows], rows, int((first & present).sum()), names)


def _side(ids: pa.Array, position: np.ndarray, labels: list[str], tables) -> np.ndarray:
    """Our record id of each pair's record on one side (``position``: its source's index in
    ``labels``; -1 when unknown): one look-up of the whole column when the side is all one
    source (a deduplication, or a linker writing every pair the same way round)."""
    found = np.full(len(ids), -1, np.int64)
    for k, label in enumerate(labels):
        rows = np.flatnonzero(position == k)
        if len(rows) == len(ids):
            return _lookup(ids, tables[label])
        if len(rows):
            found[rows] = _lookup(ids.take(rows), tables[label])
    return found


def _firsts(keys: np.ndarray) -> np.ndarray:
    """Whether each key is the first of its value in ``keys``. A sort of the values tells
    whether any repeats (numpy's sort is ~10× faster than its argsort, ``np.unique`` with
    ``return_index`` slower still); only then are the keys put in order, stably."""
    first = np.ones(len(keys), dtype=bool)
    ordered = np.sort(keys)
    if not (ordered[1:] == ordered[:-1]).any():
        return first
    order = np.argsort(keys, kind="stable")
    ordered = keys[order]
    first[order[1:][ordered[1:] == ordered[:-1]]] = False
    return first


def _present(keys: np.ndarray, existing: np.ndarray) -> np.ndarray:
    """Whether each key is in ``existing`` (a hash look-up: ~2× ``searchsorted``'s random
    probes, ~5× ``np.isin``)."""
    if not len(existing):
        return np.zeros(len(keys), dtype=bool)
    found = pc.is_in(pa.array(keys), value_set=pa.array(existing))
    return found.to_numpy(zero_copy_only=False)


def _position(values: pa.Array, order: list[str]) -> np.ndarray:
    found = pc.index_in(values, value_set=pa.array(order, pa.string()))
    return pc.fill_null(found, -1).to_numpy(zero_copy_only=False).astype(np.int64)


def _flagger(problems: list[str], item: str):
    """A function adding a problem per row where a mask holds (up to the limit), then a count."""

    def flag(mask: np.ndarray, message: str, column: str | None = None) -> None:
        rows = np.flatnonzero(mask)
        room = max(0, MAX_PROBLEMS - len(problems))
        where = f", {'column' if item == 'row' else 'field'} {column!r}" if column else ""
        problems.extend(f"{item} {r + 1}{where}: {message}" for r in rows[:room].tolist())
        if len(rows) > room:
            problems.append(f"{message}{where}: {len(rows):,} {item}s in all")

    return flag


def keep_datasets(project: Project, names: Mapping[str, str]) -> None:
    """Remember the linker's name of each source (the first round's names stay)."""
    for source in project.sources:
        if source.dataset is None and source.label in names:
            source.dataset = names[source.label][:100]
