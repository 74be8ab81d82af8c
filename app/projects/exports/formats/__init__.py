"""Write a project's results as CSV: Splink labels, MINDFIRL's result file, clusters, data.

Every writer takes a text stream and plain values, so the views decide where the bytes go
(a download, a file) and the database layer decides what to read. A pair nobody answered is
written as undecided (empty decision), never dropped or fatal.

Every row goes through the app's one CSV writer (:mod:`app.csvsafe`): a value a spreadsheet
would read as a formula (``=HYPERLINK(...)``, ``+``, ``-``, ``@``, tab, CR first, or their
full-width forms) gets a leading apostrophe, per OWASP's "CSV Injection" guidance, and a
cell with a CR, an LF, a comma or a quote is quoted. Values are otherwise written unchanged.
The peer-tool exports (:mod:`app.projects.exports.peers`) keep ids unchanged, quoted.

``answers`` holds a reviewer's answer and its codes, ``labels`` the Splink labels file,
``legacy`` MINDFIRL's result file, ``clustering`` the clusters and the linked data.
"""

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
