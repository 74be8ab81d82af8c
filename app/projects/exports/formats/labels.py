"""Write the Splink-compatible labels file, one row per reviewed (or unreviewed) pair."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime
from typing import TextIO

from app.projects.exports.formats.answers import Judgement, match_score
from app.projects.exports.formats.csvwriter import export_writer

__all__ = ["LABEL_COLUMNS", "LabelRow", "write_labels"]


#: Splink's labels columns first (``clerical_match_score`` in [0, 1]), then ours. The
#: ``final_*`` columns repeat the pair's settled answer (agreement, a majority of three or the
#: manager's resolution) on each of its rows, so reviewers' disagreements stay visible and a
#: pair's one label can still be read off any of its rows.
LABEL_COLUMNS = (
    "source_dataset_l",
    "unique_id_l",
    "source_dataset_r",
    "unique_id_r",
    "clerical_match_score",
    "decision",
    "confidence",
    "reviewer",
    "decided_at",
    "kapr_spent",
    "final_decision",
    "final_confidence",
    "decided_by",
    "match_key",
    "purpose",
    "round",
    "match_probability",
    "match_weight",
)


@dataclass(frozen=True, slots=True)
class LabelRow:
    """One reviewed (or not yet reviewed) pair for the labels export."""

    source_l: str
    id_l: str
    source_r: str
    id_r: str
    judgement: Judgement = Judgement()
    reviewer: str | None = None
    decided_at: datetime | None = None
    kapr_spent: float | None = None
    final: Judgement = Judgement()
    decided_by: str = ""  # reviewers | manager | "" (not decided yet)
    match_key: str | None = None
    purpose: str | None = None
    round: int | None = None
    match_probability: float | None = None  # the linker's scores, as at review time
    match_weight: float | None = None


def _confidence(judgement: Judgement) -> str | None:
    level = judgement.confidence
    return level.name.lower() if level is not None else None


def write_labels(out: TextIO, rows: Iterable[LabelRow], header: bool = True) -> int:
    """Write a Splink-compatible labels CSV (:data:`LABEL_COLUMNS`); return the row count.

    ``header=False`` writes the rows only (a later chunk of a streamed file), as every writer
    of a streamed export here."""
    writer = export_writer(out)
    if header:
        writer.writerow(LABEL_COLUMNS)
    count = 0
    for row in rows:
        score = match_score(row.judgement)
        writer.writerow(
            [
                row.source_l,
                row.id_l,
                row.source_r,
                row.id_r,
                "" if score is None else f"{score:g}",
                row.judgement.decision,
                _confidence(row.judgement),
                row.reviewer,
                row.decided_at.isoformat() if row.decided_at is not None else None,
                row.kapr_spent,
                row.final.decision,
                _confidence(row.final),
                row.decided_by,
                row.match_key,
                row.purpose,
                row.round,
                row.match_probability,
                row.match_weight,
            ]
        )
        count += 1
    return count
