"""Read a project's answers from the database and write one of its exports.

``labels`` (one row per reviewer and reviewed pair with the pair's settled answer, its
purpose, round, scores and rule; unanswered pairs undecided; for people and spreadsheets),
``splink`` and ``splink_matches`` (Splink's labels table: people's final decision once per
pair, or the matches only; ``splink_matches`` defaults to the calibration sample),
``recordlinkage`` (an annotation JSON file; see :mod:`app.projects.exports.peers`),
``legacy`` (MINDFIRL's result layout; pair-file projects), and the final linkage, which
combines the model's decisions with people's: ``linkage`` (every decided pair with who
decided it), ``clusters`` (connected components of the final matches) and ``linked``
(cluster id + sensitive attributes from the vault, joined by pseudonym; no identifying
attribute). Source names are the linker's as imported (``Source.dataset``), else A/B.
"""

from __future__ import annotations

import io
import itertools
import re
from collections.abc import Iterator, Mapping
from dataclasses import dataclass

from sqlalchemy import func, select

from app.extensions import db
from app.models import REVIEWED, Project, ProjectKind, Purpose, Record, Source, VaultRecord
from app.models import Pair as PairRow
from app.projects.blocking.pairing import pair_records
from app.projects.exports import formats as exports
from app.projects.exports import linkage, peers
from app.projects.exports.formats import Confidence, Decision, Judgement, LabelRow
from app.projects.exports.peers import SettledPair
from app.projects.progress.outcomes import PairOutcome, outcomes
from app.projects.reading.pairfile import Pair as FilePair
from app.projects.reading.pairfile import PairFile

__all__ = [
    "KINDS",
    "VALUE_KINDS",
    "ExportOptionError",
    "ExportOptions",
    "ExportRefused",
    "export_chunks",
    "export_csv",
    "export_filename",
    "export_mimetype",
    "label_purpose",
]

KINDS = (
    "labels", "splink", "splink_matches", "recordlinkage", "legacy", "clusters", "linked",
    "linkage",
)  # fmt: skip
_JSON_KINDS = ("recordlinkage",)
#: Exports that read record values (vault or identifying): none once a project is closed out.
VALUE_KINDS = ("linked", "legacy")
#: The ``?purpose=`` of the label exports (every purpose a reviewer may get).
LABEL_PURPOSES = tuple(p.value for p in REVIEWED)
SCORES = ("binary", "confidence")


class ExportRefused(ValueError):
    """This export does not apply to this project."""


class ExportOptionError(ValueError):
    """A query option of an export is not one it knows."""


@dataclass(frozen=True)
class ExportOptions:
    """``?purpose=`` (label exports: only pairs of that purpose) and ``?score=confidence``
    (``splink``: the 6-point confidence as ``clerical_match_score``, docs/triage.md)."""

    purpose: str | None = None
    score: str = "binary"

    @classmethod
    def of(cls, args: Mapping[str, str]) -> ExportOptions:
        purpose, score = args.get("purpose") or None, args.get("score") or "binary"
        if purpose is not None and purpose not in LABEL_PURPOSES:
            raise ExportOptionError(f"'purpose' must be one of {', '.join(LABEL_PURPOSES)}")
        if score not in SCORES:
            raise ExportOptionError("'score' must be 'binary' or 'confidence'")
        return cls(purpose, score)


def export_filename(project: Project, kind: str) -> str:
    stem = re.sub(r"[^A-Za-z0-9_-]+", "-", project.name).strip("-")[:60] or "project"
    extension = "json" if kind in _JSON_KINDS else "csv"
    return f"{stem}-{project.id}-{kind}.{extension}"


def export_mimetype(kind: str) -> str:
    return "application/json" if kind in _JSON_KINDS else "text/csv"


def label_purpose(project: Project, kind: str, options: ExportOptions) -> tuple[str | None, str]:
    """The purpose a label export keeps, and a note saying what that means for the linker.

    ``splink_matches`` defaults to the calibration sample when the project has one: matches
    from the band alone bias the m probabilities Splink estimates from them (docs/triage.md).
    """
    if options.purpose is not None or kind != "splink_matches":
        return options.purpose, ""
    calibrated = db.session.scalar(
        select(func.count(PairRow.id)).where(
            PairRow.project_id == project.id, PairRow.purpose == Purpose.CALIBRATION.value
        )
    )
    if calibrated:
        return Purpose.CALIBRATION.value, "the calibration sample's matches (the default)"
    return None, (
        "no calibration sample in this project: these are the reviewed pairs' matches only, "
        "and m estimated from them alone is biased (docs/triage.md)"
    )


def export_chunks(
    project: Project, kind: str, options: ExportOptions | None = None
) -> Iterator[str] | list[str]:
    """Export ``kind`` of ``project`` as pieces of its text, for a streamed response.

    Checked before the first piece (:class:`ExportRefused` is raised here, not while
    streaming). ``splink`` and ``splink_matches`` (1/0 scores) and ``linkage`` are read from
    the database :data:`~app.projects.exports.linkage.STREAM_ROWS` pairs at a time and written
    a chunk at a time, so a million pairs are never a list in memory; the other exports are
    written whole and come as a list of one piece (nothing left to stream).
    """
    options = options or ExportOptions()
    _check_kind(project, kind)
    if kind in ("splink", "splink_matches") and options.score == "binary":
        purpose, _ = label_purpose(project, kind, options)
        matches_only = kind == "splink_matches"
        return _in_chunks(
            lambda out, part, header: peers.write_splink_labels(out, part, matches_only, header),
            linkage.settled_pairs(project, purpose),
        )
    if kind == "linkage":
        return _in_chunks(linkage.write_linkage, linkage.final_pairs(project))
    return [export_csv(project, kind, options)]


def _in_chunks(write, rows: Iterator) -> Iterator[str]:
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


def _check_kind(project: Project, kind: str) -> None:
    if kind not in KINDS:
        raise ExportRefused(f"unknown export {kind!r}; choose from {', '.join(KINDS)}")
    if kind == "legacy" and project.kind != ProjectKind.PAIRFILE:
        raise ExportRefused("the MINDFIRL legacy layout exists for pair-file projects only")
    if kind in VALUE_KINDS and project.closed:
        raise ExportRefused(
            f"the {kind} export carries record values, destroyed when the project was closed "
            "out; its hash is in the close-out record"
        )


def export_csv(project: Project, kind: str, options: ExportOptions | None = None) -> str:
    """The text of export ``kind`` for ``project`` (CSV, or JSON for ``recordlinkage``)."""
    options = options or ExportOptions()
    _check_kind(project, kind)
    if kind in ("splink", "splink_matches", "linkage") and options.score == "binary":
        return "".join(export_chunks(project, kind, options))
    out = io.StringIO()
    if kind in ("labels", "splink", "splink_matches", "recordlinkage", "legacy"):
        by_pair = outcomes(project.id)
    if kind == "labels":
        exports.write_labels(out, _label_rows(project, by_pair, options.purpose))
    elif kind in ("splink", "splink_matches"):
        purpose, _ = label_purpose(project, kind, options)
        confidence = options.score == "confidence"
        settled = _settled(project, by_pair, purpose, confidence)
        peers.write_splink_labels(out, settled, matches_only=kind == "splink_matches")
    elif kind == "recordlinkage":
        peers.write_annotation(out, _settled(project, by_pair, options.purpose))
    elif kind == "legacy":
        pairfile, keys = _pairfile(project)
        exports.write_legacy_result(out, pairfile, _judgements(by_pair, keys))
    elif kind == "linkage":
        linkage.write_linkage(out, linkage.final_pairs(project))
    else:
        nodes = _records(project)
        found, linked_by = linkage.final_clusters(project, nodes)
        if kind == "clusters":
            exports.write_clusters(out, {key: found[key] for key in nodes}, linked_by)
        else:
            columns = [a.name for a in project.sensitive]
            vault = {
                v.pseudonym: v.values
                for v in db.session.scalars(
                    select(VaultRecord).where(VaultRecord.project_id == project.id)
                )
            }
            if not columns:
                vault = {p: {} for p, _ in nodes.values()}
            members = [(pseudonym, found[key]) for key, (pseudonym, _) in nodes.items()]
            exports.write_linked_dataset(out, members, vault, columns, linked_by)
    return out.getvalue()


def _judgement(decision: str | None, confidence: str | None) -> Judgement:
    if decision not in (Decision.SAME, Decision.DIFFERENT):
        return Judgement()
    level = Confidence[confidence.upper()] if confidence else None
    return Judgement(Decision(decision), level)


def _label_rows(project: Project, by_pair: dict[int, PairOutcome], purpose: str | None):
    for pair in linkage.reviewed_pairs(project, purpose):
        outcome = by_pair[pair.id]
        final = _judgement(outcome.final, outcome.confidence)
        shared = {
            "final": final, "decided_by": linkage.people(outcome), "match_key": pair.rule,
            "purpose": pair.purpose, "round": pair.round,
            "match_probability": pair.probability, "match_weight": pair.weight,
        }  # fmt: skip
        if not outcome.answers:
            yield LabelRow(*pair.records, **shared)
        for a in outcome.answers:
            yield LabelRow(
                *pair.records, _judgement(a.decision, a.confidence),
                reviewer=a.reviewer, decided_at=a.at,
                kapr_spent=round(a.kapr, 6) if a.kapr is not None else None, **shared,
            )  # fmt: skip


def _settled(project, by_pair, purpose: str | None, confidence: bool = False):
    """One row per reviewed pair: people's final decision after conflicts (the model's
    decisions are not labels), scored 1/0 or, with ``confidence``, on the 6-point scale."""
    for pair in linkage.reviewed_pairs(project, purpose):
        outcome = by_pair[pair.id]
        final = outcome.final
        same = None if final not in (Decision.SAME, Decision.DIFFERENT) else final == Decision.SAME
        score = None
        if confidence and same is not None:
            score = exports.match_score(_judgement(final, outcome.confidence))
        yield SettledPair(*pair.records, same, score)


def _records(project: Project) -> dict[tuple[str, str], tuple[str, list[int]]]:
    """Each record as ``(source, id) → (pseudonym, [record id])``, in source order."""
    rows = db.session.execute(
        select(
            Record.id,
            func.coalesce(Source.dataset, Source.label),
            Record.external_id,
            Record.pseudonym,
        )
        .join(Source, Source.id == Record.source_id)
        .where(Record.project_id == project.id)
        .order_by(Source.label, Record.position)
    )
    return {
        (label, external_id): (pseudonym, [record_id])
        for record_id, label, external_id, pseudonym in rows
    }


def _pairfile(project: Project) -> tuple[PairFile, dict[int, str]]:
    """Rebuild the project's pair file (values from records and vault) and the pair keys."""
    vault = {
        v.pseudonym: v.values
        for v in db.session.scalars(select(VaultRecord).where(VaultRecord.project_id == project.id))
    }
    records: dict[str, dict[str, dict]] = {"A": {}, "B": {}}
    rows = db.session.execute(
        select(Source.label, Record.external_id, Record.pseudonym, Record.values)
        .join(Source, Source.id == Record.source_id)
        .where(Record.project_id == project.id)
    )
    for label, external_id, pseudonym, values in rows:
        records[label][external_id] = {**values, **vault.get(pseudonym, {})}
    pairs, keys = [], {}
    for pair_id, (_, id_a, _, id_b, block, external_id) in pair_records(project.id).items():
        keys[pair_id] = external_id or str(pair_id)
        pairs.append(FilePair(keys[pair_id], block or "", id_a, id_b))
    attributes = {a.name: a.type for a in project.attributes}
    return PairFile(attributes, records["A"], records["B"], pairs), keys


def _judgements(by_pair: dict[int, PairOutcome], keys: dict[int, str]) -> dict[str, Judgement]:
    return {keys[pair_id]: _judgement(o.final, o.confidence) for pair_id, o in by_pair.items()}
