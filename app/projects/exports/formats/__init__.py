"""Writers of a project's results as CSV: Splink labels, MINDFIRL's result file, clusters, data."""

from app.csvsafe import is_formula, neutralize
from app.projects.exports.formats.answers import (
    Confidence,
    Decision,
    Judgement,
    match_score,
    mindfirl_choice,
)
from app.projects.exports.formats.clustering import clusters, write_clusters, write_linked_dataset
from app.projects.exports.formats.labels import LABEL_COLUMNS, LabelRow, write_labels
from app.projects.exports.formats.legacy import write_legacy_result

__all__ = [
    "LABEL_COLUMNS",
    "Confidence",
    "Decision",
    "Judgement",
    "LabelRow",
    "clusters",
    "is_formula",
    "match_score",
    "mindfirl_choice",
    "neutralize",
    "write_clusters",
    "write_labels",
    "write_legacy_result",
    "write_linked_dataset",
]
