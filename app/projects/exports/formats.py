"""Write a project's results as CSV: Splink labels, MINDFIRL's result file, clusters, data.

Every writer takes a text stream and plain values, so the views decide where the bytes go
(a download, a file) and the database layer decides what to read. A pair nobody answered is
written as undecided (empty decision), never dropped or fatal.

Every row goes through the app's one CSV writer (:mod:`app.csvsafe`): a value a spreadsheet
would read as a formula (``=HYPERLINK(...)``, ``+``, ``-``, ``@``, tab, CR first, or their
full-width forms) gets a leading apostrophe, per OWASP's "CSV Injection" guidance, and a
cell with a CR, an LF, a comma or a quote is quoted. Values are otherwise written unchanged.
The peer-tool exports (:mod:`app.projects.exports.peers`) keep ids unchanged, quoted.
"""

from __future__ import annotations

import enum
from collections.abc import Hashable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import TextIO, TypeVar

from app.core.disclosure import AttributeType, format_date
from app.csvsafe import SafeWriter, is_formula, neutralize, writer
from app.projects.reading.pairfile import STRUCTURE, PairFile

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

H = TypeVar("H", bound=Hashable)

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


class Decision(enum.StrEnum):
    """A reviewer's answer for a pair."""

    SAME = "same"
    DIFFERENT = "different"


class Confidence(enum.IntEnum):
    """How sure the reviewer was (MINDFIRL's High/Medium/Low)."""

    LOW = 1
    MEDIUM = 2
    HIGH = 3


@dataclass(frozen=True, slots=True)
class Judgement:
    """A decision and its confidence; both ``None`` while the pair is unanswered."""

    decision: Decision | None = None
    confidence: Confidence | None = None


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


def mindfirl_choice(judgement: Judgement) -> int | None:
    """MINDFIRL's answer code: 1..3 = Different High/Medium/Low, 4..6 = Same Low/Medium/High.

    ``None`` when undecided or when the confidence is unknown.
    """
    decision, confidence = judgement.decision, judgement.confidence
    if decision is None or confidence is None:
        return None
    return 4 - confidence if decision is Decision.DIFFERENT else 3 + confidence


def match_score(judgement: Judgement) -> float | None:
    """Splink's ``clerical_match_score``: the choice spread over [0, 1], else 0 or 1."""
    if judgement.decision is None:
        return None
    choice = mindfirl_choice(judgement)
    if choice is None:
        return 1.0 if judgement.decision is Decision.SAME else 0.0
    return (choice - 1) / 5


def _writer(out: TextIO) -> SafeWriter:
    # ``\n`` as in MINDFIRL's files; quoting stays minimal so the golden file matches.
    return writer(out, lineterminator="\n")


def _cells(values: Iterable[object]) -> list[object]:
    return list(values)  # the writer neutralises each cell


def _confidence(judgement: Judgement) -> str | None:
    level = judgement.confidence
    return level.name.lower() if level is not None else None


def write_labels(out: TextIO, rows: Iterable[LabelRow], header: bool = True) -> int:
    """Write a Splink-compatible labels CSV (:data:`LABEL_COLUMNS`); return the row count.

    ``header=False`` writes the rows only (a later chunk of a streamed file), as every writer
    of a streamed export here."""
    writer = _writer(out)
    if header:
        writer.writerow(LABEL_COLUMNS)
    count = 0
    for row in rows:
        score = match_score(row.judgement)
        writer.writerow(
            _cells(
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
        )
        count += 1
    return count


def write_legacy_result(
    out: TextIO, pairfile: PairFile, judgements: Mapping[str, Judgement]
) -> int:
    """Write MINDFIRL's result layout: the pair-file columns + ``decision`` + ``choice``.

    Two rows per pair (A then B), both carrying the pair's ``decision`` (1 = same,
    0 = different, empty = undecided) and ``choice`` (:func:`mindfirl_choice`). Dates are
    written back as ``MM/DD/YYYY``. Returns the number of pairs written.
    """
    writer = _writer(out)
    attributes = list(pairfile.attributes)
    writer.writerow(_cells([*STRUCTURE, *attributes, "decision", "choice"]))
    for pair in pairfile.pairs:
        judgement = judgements.get(pair.pair_id, Judgement())
        decision = {Decision.SAME: 1, Decision.DIFFERENT: 0}.get(judgement.decision)
        tail = [decision, mindfirl_choice(judgement)]
        for db, record_id, records in (
            ("A", pair.id_a, pairfile.records_a),
            ("B", pair.id_b, pairfile.records_b),
        ):
            values = [
                _legacy_value(pairfile.attributes[a], records[record_id][a]) for a in attributes
            ]
            writer.writerow(_cells([pair.pair_id, pair.block_id, db, record_id, *values, *tail]))
    return len(pairfile.pairs)


def _legacy_value(kind: AttributeType, value: str | None) -> str:
    if value is None:
        return ""
    return format_date(value) if kind is AttributeType.DATE else value


def clusters(nodes: Iterable[H], same_pairs: Iterable[tuple[H, H]]) -> dict[H, int]:
    """Number the connected components of the "same" decisions (union–find).

    Every node gets a cluster id (a singleton if never judged "same"); ids run from 1 in the
    order nodes are first seen (``nodes`` first, then nodes only named in ``same_pairs``).
    """
    parent: dict[H, H] = {}
    size: dict[H, int] = {}

    def find(x: H) -> H:
        parent.setdefault(x, x)
        size.setdefault(x, 1)
        while parent[x] != x:
            parent[x] = parent[parent[x]]  # path halving
            x = parent[x]
        return x

    for node in nodes:
        find(node)
    for a, b in same_pairs:
        root_a, root_b = find(a), find(b)
        if root_a == root_b:
            continue
        if size[root_a] < size[root_b]:
            root_a, root_b = root_b, root_a
        parent[root_b] = root_a
        size[root_a] += size[root_b]
    numbers: dict[H, int] = {}
    return {node: numbers.setdefault(find(node), len(numbers) + 1) for node in list(parent)}


def write_clusters(
    out: TextIO,
    assignment: Mapping[tuple[str, str], int],
    linked_by: Mapping[int, str] | None = None,
    header: bool = True,
) -> int:
    """Write ``cluster_id, source_dataset, unique_id`` for each ``(source, id)`` node.

    With ``linked_by`` (cluster → ``model``, ``reviewers``, ``manager`` joined by ``+``), a
    ``linked_by`` column says which kinds of decision link each cluster ("" for a singleton).
    """
    writer = _writer(out)
    extra = ["linked_by"] if linked_by is not None else []
    if header:
        writer.writerow(("cluster_id", "source_dataset", "unique_id", *extra))
    for (source, record_id), cluster in assignment.items():
        tail = [linked_by.get(cluster, "")] if linked_by is not None else []
        writer.writerow(_cells([cluster, source, record_id, *tail]))
    return len(assignment)


def write_linked_dataset(
    out: TextIO,
    members: Iterable[tuple[str, int]],
    sensitive: Mapping[str, Mapping[str, str | None]],
    columns: Sequence[str],
    linked_by: Mapping[int, str] | None = None,
    header: bool = True,
) -> int:
    """Write the linked de-identified data: ``cluster_id`` and the sensitive ``columns``.

    With ``linked_by`` (as :func:`write_clusters`) a ``linked_by`` column follows
    ``cluster_id``.

    ``members`` gives ``(record pseudonym, cluster id)``; ``sensitive`` looks up a record's
    sensitive values by pseudonym. Neither pseudonyms nor identifying values are written.
    A pseudonym missing from ``sensitive`` is an error (the vault and the records disagree).
    A vault column itself named ``cluster_id`` (the generator's ground truth) is headed
    ``vault_cluster_id``, so the file's own linkage clusters keep the one ``cluster_id``.
    """
    writer = _writer(out)
    names = [f"vault_{c}" if c.lower() == "cluster_id" else c for c in columns]
    extra = ["linked_by"] if linked_by is not None else []
    if header:
        writer.writerow(_cells(["cluster_id", *extra, *names]))
    count = 0
    for pseudonym, cluster in members:
        try:
            values = sensitive[pseudonym]
        except KeyError:
            raise ValueError(f"no sensitive values for record {pseudonym}") from None
        by = [linked_by.get(cluster, "")] if linked_by is not None else []
        writer.writerow(_cells([cluster, *by, *(values.get(c) for c in columns)]))
        count += 1
    return count
