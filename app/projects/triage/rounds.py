"""Add a numbered round of pairs to a project: a linker's scored pairs (triaged or not).

A round is a batch of pairs added at once, numbered from 1 (``Pair.round``), with one
append-only :class:`~app.models.Round` row keeping its provenance: where the pairs came
from, the triage settings and calibration strata, and the counts. Rounds may be added
while workers hold assignments: an existing assignment's pairs, KAPR, budget and meters do
not change (a new round is assigned as new work, :func:`~app.projects.staffing.assign_pairs`
with ``round``). Pairs the project holds already are skipped and counted (``present``).
The caller commits.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import asdict, dataclass

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from app import charts
from app.extensions import db
from app.models import Project, Purpose, Round, User
from app.projects.reading.predictions import ScoredPairs
from app.projects.triage.plan import (
    MATCH,
    Triaged,
    TriageSettings,
    side_histogram,
    triage,
)
from app.projects.triage.scored import Resolved, ScoredPairsError, keep_datasets, resolve_pairs
from app.projects.triage.store import NewPairs, insert_pairs, next_round

__all__ = [
    "RoundResult",
    "TriagePreview",
    "add_scored_round",
    "by_record",
    "histogram_chart",
    "preview_scores",
    "record_round",
]

HISTOGRAM_BINS = 20


@dataclass(frozen=True)
class RoundResult:
    """A round made: its number, origin and counts (pairs by outcome), its triage if any."""

    number: int
    origin: str
    counts: dict[str, int]
    triage: dict | None = None

    def as_dict(self) -> dict:
        return asdict(self)


@dataclass(frozen=True)
class TriagePreview:
    """What a triage would do, before anything is written: counts and a histogram."""

    counts: dict[str, int]
    settings: TriageSettings
    chart: dict
    datasets: dict[str, str]
    strata: dict | None = None


def _resolve(project: Project, scored: ScoredPairs, sources, item: str) -> Resolved:
    columns = ("unique_id_l", "unique_id_r") if item == "row" else ("a", "b")
    return resolve_pairs(
        project, scored.id_l, scored.id_r, scored.source_l, scored.source_r,
        sources=sources, item=item, columns=columns,
        repeats="error" if item == "row" else "drop",
    )  # fmt: skip


def _triaged(scored: ScoredPairs, resolved: Resolved, settings: TriageSettings) -> Triaged:
    rows = resolved.rows
    probability, weight = scored.match_probability[rows], scored.match_weight[rows]
    if np.isnan(probability).any():
        raise ScoredPairsError(
            ["triage needs a score for every pair: give 'match_probability' or 'match_weight'"]
        )
    return triage(probability, weight, settings)


def histogram_chart(scored: ScoredPairs, rows, settings: TriageSettings) -> dict:
    """A stacked histogram of the triaged score: bins split below / inside / above the band."""
    if settings.score == "probability":
        values, lo, hi, title = scored.match_probability[rows], 0.0, 1.0, "Match probability"
    else:
        values, lo, hi, title = scored.match_weight[rows], None, None, "Match weight"
    edges, sides = side_histogram(values, settings.lower, settings.upper, HISTOGRAM_BINS, lo, hi)
    labels = [f"{edges[i]:.3g}–{edges[i + 1]:.3g}" for i in range(len(edges) - 1)]
    names = {"below": "Non-match (model)", "inside": "Band (review)", "above": "Match (model)"}
    return charts.bar(
        f"{title} of the scored pairs",
        labels,
        [charts.Series(names[side], counts) for side, counts in sides.items()],
        x_title=title,
        y_title="Pairs",
        y_scale="logarithmic",
        stacked=True,
    )


def preview_scores(
    project: Project,
    scored: ScoredPairs,
    settings: TriageSettings,
    *,
    sources: Mapping[str, str] | None = None,
) -> TriagePreview:
    """Resolve and triage ``scored`` without writing: what :func:`add_scored_round` would do."""
    resolved = _resolve(project, scored, sources, "row")
    triaged = _triaged(scored, resolved, settings)
    counts = {**triaged.counts, "present": resolved.present}
    chart = histogram_chart(scored, resolved.rows, settings)
    strata = triaged.strata.as_dict() if triaged.strata else None
    return TriagePreview(counts, settings, chart, resolved.datasets, strata)


def add_scored_round(
    project: Project,
    scored: ScoredPairs,
    settings: TriageSettings | None,
    by: User,
    *,
    sources: Mapping[str, str] | None = None,
    filename: str | None = None,
    item: str = "row",
    progress=None,
) -> RoundResult:
    """Add ``scored`` as the project's next round, triaged by ``settings`` (or all reviewed).

    Without ``settings`` every pair goes to review (purpose ``band`` when it has a score,
    ``blocking`` when it has none). Raises :class:`ScoredPairsError` (nothing written).
    ``progress(written, total)`` follows the write of the pairs, chunk by chunk.
    """
    resolved = _resolve(project, scored, sources, item)
    rows = resolved.rows
    if not len(rows):
        raise ScoredPairsError(["no new pair: the project has every one of them already"])
    new = NewPairs(
        resolved.a, resolved.b, scored.match_probability[rows], scored.match_weight[rows],
        _rules(scored.match_key, rows),
    )  # fmt: skip
    number = next_round(project)
    unscored = bool(np.isnan(new.probability).all())
    purpose = Purpose.BLOCKING if unscored else Purpose.BAND
    record = None
    if settings is not None:
        triaged = _triaged(scored, resolved, settings)
        new.purpose, new.decision = triaged.purpose, triaged.decision
        reviewed = triaged.counts["review"]
        new.order = by_record(triaged.order, reviewed, new.a, new.b, triaged.decision)
        counts = dict(triaged.counts)
        strata = triaged.strata.as_dict() if triaged.strata else None
        record = {**settings.as_dict(), "strata": strata}
    else:
        counts = {"pairs": len(new), "review": len(new)}
    counts["present"] = resolved.present
    insert_pairs(project.id, new, number, purpose.value, progress)
    keep_datasets(project, resolved.datasets)
    origin = "pairs" if unscored else "scores"
    return record_round(project, number, origin, by, counts, record, filename)


def _rules(keys: pa.Array | None, rows: np.ndarray) -> np.ndarray | None:
    """The kept pairs' rules (``match_key``) as an object array, ``None`` for a pair without:
    each distinct rule made a Python string once (a linker has a few rules and millions of
    pairs), the array built by indexing."""
    if keys is None:
        return None
    encoded = pc.dictionary_encode(keys.take(rows))
    text = np.array([*encoded.dictionary.to_pylist(), None], dtype=object)
    return text[pc.fill_null(encoded.indices, -1).to_numpy(zero_copy_only=False)]


def by_record(
    order: np.ndarray, reviewed: int, a: np.ndarray, b: np.ndarray, decision: np.ndarray
) -> np.ndarray:
    """``order`` with its model-decided tail (after the ``reviewed`` first) sorted by the
    model's decision, then record ids: nobody reviews those pairs, so their order is free.
    A chunk of one decision writes it once, not per pair; in record order, readers that join
    a round's pairs to their records (the exports) find record ``a`` on the page they read
    last. (The order no longer speeds the write itself: the model's pairs are outside the
    unique index since ``uq_pairs_reviewed``.)"""
    tail = order[reviewed:]
    # one int64 key per pair (record ids are 32-bit; were one not, only the order would
    # suffer, never what is stored): a plain sort, ~5× a three-key lexsort
    key = (a[tail].astype(np.int64) << 31) | b[tail].astype(np.int64)
    key |= (decision[tail] == MATCH).astype(np.int64) << 62
    return np.concatenate([order[:reviewed], tail[np.argsort(key)]])


def record_round(
    project: Project, number: int, origin: str, by: User, counts, triage_record=None, filename=None
) -> RoundResult:
    """Write the round's provenance row; flush."""
    db.session.add(
        Round(
            project_id=project.id, number=number, origin=origin, created_by=by.id,
            filename=(filename or None) and filename[:255], triage=triage_record, counts=counts,
        )
    )  # fmt: skip
    db.session.flush()
    return RoundResult(number, origin, counts, triage_record)
