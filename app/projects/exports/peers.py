"""Write settled labels in the formats peer tools read: Splink's labels table, recordlinkage's
annotation file.

Both take :class:`SettledPair` rows: one per pair, its settled answer (reviewers agreeing, a
majority of three or the manager's resolution) or ``None`` while it is not settled.

**Splink** (``splink``, ``splink_matches``). Splink's labels table has five columns,
``source_dataset_l, unique_id_l, source_dataset_r, unique_id_r, clerical_match_score``.
``source_dataset`` is the source's name as a linker's scored pairs named it (Splink's own
``source_dataset``, kept on import), else the project's source label (``A``, ``B``): register
each source in Splink under that name as its ``dataset_display_name``
(``db_api.register(df_a, dataset_display_name="A")``) so the labels join to its records, and
keep Splink's default ``unique_id_column_name`` (``unique_id``: rename the id column of your
files to it), which the ``unique_id_l``/``unique_id_r`` columns name.
``splink`` has every settled pair once (people's final decision after conflicts: never the
model's), score 1 (same) or 0 (different), or with ``?score=confidence`` the 6-point
confidence spread over [0, 1] (:func:`~app.projects.exports.formats.match_score`); unsettled
pairs are left out, because Splink reads a missing score as a non-match. ``splink_matches``
has the "same" pairs only: ``estimate_m_from_pairwise_labels`` takes every row as a match;
it defaults to the calibration sample (docs/triage.md).

Ids are written **unchanged**: they are the join key, and the apostrophe of
:func:`~app.projects.exports.formats.neutralize` would make Splink miss the record. A cell
that a spreadsheet would read as a formula (:func:`app.csvsafe.is_formula`) is written in double
quotes, which keeps the value for every CSV reader (Splink/DuckDB, pandas, Python's
``csv``); LibreOffice then keeps it as text if its import option "Format quoted field as
text" is on, but Excel evaluates a quoted formula all the same. No quoting rule both keeps
the value and stops every spreadsheet, so **these two files are for Splink, not for a
spreadsheet**: open the ``labels`` export there, which is neutralised with an apostrophe.

**recordlinkage** (``recordlinkage``): the annotation file of ``recordlinkage.annotation``,
schema version 1: ``{"version": 1, "pairs": [{"identifiers": {"a": {"dataset", "record"},
"b": {...}}, "fields": [], "label": 1 | 0}]}``. ``fields`` is always empty (no record value
leaves the project this way); a pair that is not settled has no ``label``, which
``read_annotation_file(...).unknown`` lists. JSON has no formulas: ids are written unchanged.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import dataclass
from typing import TextIO

from app import csvsafe

__all__ = [
    "SPLINK_COLUMNS",
    "SettledPair",
    "write_annotation",
    "write_splink_labels",
]

SPLINK_COLUMNS = (
    "source_dataset_l",
    "unique_id_l",
    "source_dataset_r",
    "unique_id_r",
    "clerical_match_score",
)
ANNOTATION_VERSION = 1


@dataclass(frozen=True, slots=True)
class SettledPair:
    """A pair's two records (source label and id each) and its settled answer."""

    source_l: str
    id_l: str
    source_r: str
    id_r: str
    same: bool | None = None
    score: float | None = None  # the clerical_match_score when not 1/0 (``?score=confidence``)


def write_splink_labels(
    out: TextIO, pairs: Iterable[SettledPair], matches_only=False, header: bool = True
) -> int:
    """Write Splink's labels table (:data:`SPLINK_COLUMNS`), settled pairs only, ids unchanged.

    ``matches_only`` keeps the "same" pairs (for ``estimate_m_from_pairwise_labels``);
    ``header=False`` writes the rows only (a later chunk of a streamed file).
    Returns the number of rows written.
    """
    writer = csvsafe.writer(out, lineterminator="\n", neutral=False)  # ids unchanged, quoted
    if header:
        writer.writerow(SPLINK_COLUMNS)
    count = 0
    for pair in pairs:
        if pair.same is None or (matches_only and not pair.same):
            continue
        score = ("1" if pair.same else "0") if pair.score is None else f"{pair.score:g}"
        writer.writerow([pair.source_l, pair.id_l, pair.source_r, pair.id_r, score])
        count += 1
    return count


def write_annotation(out: TextIO, pairs: Iterable[SettledPair]) -> int:
    """Write a recordlinkage annotation file (schema v1) without field values; return pairs."""
    items = []
    for pair in pairs:
        item: dict = {
            "identifiers": {
                "a": {"dataset": pair.source_l, "record": pair.id_l},
                "b": {"dataset": pair.source_r, "record": pair.id_r},
            },
            "fields": [],
        }
        if pair.same is not None:
            item["label"] = 1 if pair.same else 0
        items.append(item)
    json.dump({"version": ANNOTATION_VERSION, "pairs": items}, out, indent=1, ensure_ascii=False)
    out.write("\n")
    return len(items)
