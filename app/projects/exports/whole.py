"""Every export written whole: every pair's outcome read first, then the text in one piece.

The path of the small exports (``recordlinkage``'s JSON, MINDFIRL's ``legacy`` layout) and the
oracle the streamed exports are tested against (:mod:`app.projects.exports.streams`; and
``bench/scale.py``'s baseline): :func:`whole_export` is the export as written before issue 24
streamed them. :func:`pair_label_rows` and :func:`settled_of` say what one pair's rows are,
for both paths.
"""

from __future__ import annotations

import io
from collections.abc import Iterator

from sqlalchemy import func, select

from app.extensions import db
from app.models import Project, Record, Source, VaultRecord
from app.projects.blocking.pairing import pair_records
from app.projects.exports import formats as exports
from app.projects.exports import linkage, peers
from app.projects.exports.formats import Confidence, Decision, Judgement, LabelRow
from app.projects.exports.linkage import ReviewedPair
from app.projects.exports.peers import SettledPair
from app.projects.progress.outcomes import PairOutcome, outcomes
from app.projects.reading.pairfile import Pair as FilePair
from app.projects.reading.pairfile import PairFile

__all__ = ["judgement", "pair_label_rows", "settled_of", "whole_export"]


def whole_export(project: Project, kind: str, purpose: str | None, score: str = "binary") -> str:
    """The text of export ``kind`` (checked by the caller), built whole in memory.

    ``purpose``: the label exports' pairs (``splink_matches``' default already applied).
    """
    out = io.StringIO()
    if kind in ("labels", "splink", "splink_matches", "recordlinkage", "legacy"):
        by_pair = outcomes(project.id)
    if kind == "labels":
        exports.write_labels(out, _label_rows(project, by_pair, purpose))
    elif kind in ("splink", "splink_matches"):
        settled = _settled(project, by_pair, purpose, score == "confidence")
        peers.write_splink_labels(out, settled, matches_only=kind == "splink_matches")
    elif kind == "recordlinkage":
        peers.write_annotation(out, _settled(project, by_pair, purpose))
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


def judgement(decision: str | None, confidence: str | None) -> Judgement:
    """A stored decision and confidence as a :class:`Judgement` (unanswered: empty)."""
    if decision not in (Decision.SAME, Decision.DIFFERENT):
        return Judgement()
    level = Confidence[confidence.upper()] if confidence else None
    return Judgement(Decision(decision), level)


def pair_label_rows(pair: ReviewedPair, outcome: PairOutcome) -> Iterator[LabelRow]:
    """The ``labels`` rows of one reviewed pair: one per reviewer, or one undecided row."""
    final = judgement(outcome.final, outcome.confidence)
    shared = {
        "final": final, "decided_by": linkage.people(outcome), "match_key": pair.rule,
        "purpose": pair.purpose, "round": pair.round,
        "match_probability": pair.probability, "match_weight": pair.weight,
    }  # fmt: skip
    if not outcome.answers:
        yield LabelRow(*pair.records, **shared)
    for a in outcome.answers:
        yield LabelRow(
            *pair.records, judgement(a.decision, a.confidence),
            reviewer=a.reviewer, decided_at=a.at,
            kapr_spent=round(a.kapr, 6) if a.kapr is not None else None, **shared,
        )  # fmt: skip


def settled_of(pair: ReviewedPair, outcome: PairOutcome, confidence: bool = False) -> SettledPair:
    """People's final decision of a reviewed pair after conflicts (the model's decisions are
    not labels), scored 1/0 or, with ``confidence``, on the 6-point scale."""
    final = outcome.final
    same = None if final not in (Decision.SAME, Decision.DIFFERENT) else final == Decision.SAME
    score = None
    if confidence and same is not None:
        score = exports.match_score(judgement(final, outcome.confidence))
    return SettledPair(*pair.records, same, score)


def _label_rows(project: Project, by_pair: dict[int, PairOutcome], purpose: str | None):
    for pair in linkage.reviewed_pairs(project, purpose):
        yield from pair_label_rows(pair, by_pair[pair.id])


def _settled(project, by_pair, purpose: str | None, confidence: bool = False):
    """One row per reviewed pair (of ``purpose``), from every pair's outcome."""
    for pair in linkage.reviewed_pairs(project, purpose):
        yield settled_of(pair, by_pair[pair.id], confidence)


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
    return {keys[pair_id]: judgement(o.final, o.confidence) for pair_id, o in by_pair.items()}
