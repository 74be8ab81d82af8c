"""Triage: a linker's scored pairs in, the model's decisions, the band and a calibration sample."""

from app.projects.triage.items import ItemsError, pairs_from_items
from app.projects.triage.plan import TriageError, TriageSettings
from app.projects.triage.reblock import add_blocking_round, current_clusters, reblock_round
from app.projects.triage.rounds import (
    RoundResult,
    TriagePreview,
    add_scored_round,
    preview_scores,
)
from app.projects.triage.scored import ScoredPairsError, read_scores

__all__ = [
    "ItemsError",
    "RoundResult",
    "ScoredPairsError",
    "TriageError",
    "TriagePreview",
    "TriageSettings",
    "add_blocking_round",
    "add_scored_round",
    "current_clusters",
    "pairs_from_items",
    "preview_scores",
    "read_scores",
    "reblock_round",
]
