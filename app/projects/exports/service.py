"""Read a project's answers from the database and write one of the four CSV exports.

``labels`` (Splink labels, one row per reviewer and pair with the pair's settled answer,
unanswered pairs undecided),
``legacy`` (MINDFIRL's result layout; pair-file projects), ``clusters`` (connected
components of the final "same" answers) and ``linked`` (cluster id + sensitive attributes
from the vault, joined by pseudonym; no identifying attribute).
"""

from __future__ import annotations

import io
import re

from sqlalchemy import select

from app.extensions import db
from app.models import Pair as PairRow
from app.models import Project, ProjectKind, Record, Source, VaultRecord
from app.projects.blocking.pairing import pair_records
from app.projects.exports import formats as exports
from app.projects.exports.formats import Confidence, Decision, Judgement, LabelRow
from app.projects.progress.outcomes import PairOutcome, outcomes
from app.projects.reading.pairfile import Pair as FilePair
from app.projects.reading.pairfile import PairFile

__all__ = ["KINDS", "ExportRefused", "export_csv", "export_filename"]

KINDS = ("labels", "legacy", "clusters", "linked")


class ExportRefused(ValueError):
    """This export does not apply to this project."""


def export_filename(project: Project, kind: str) -> str:
    stem = re.sub(r"[^A-Za-z0-9_-]+", "-", project.name).strip("-")[:60] or "project"
    return f"{stem}-{project.id}-{kind}.csv"


def export_csv(project: Project, kind: str) -> str:
    """The CSV text of export ``kind`` for ``project``."""
    if kind not in KINDS:
        raise ExportRefused(f"unknown export {kind!r}; choose from {', '.join(KINDS)}")
    if kind == "legacy" and project.kind != ProjectKind.PAIRFILE:
        raise ExportRefused("the MINDFIRL legacy layout exists for pair-file projects only")
    out = io.StringIO()
    by_pair = outcomes(project.id)
    if kind == "labels":
        exports.write_labels(out, _label_rows(project, by_pair))
    elif kind == "legacy":
        pairfile, keys = _pairfile(project)
        exports.write_legacy_result(out, pairfile, _judgements(by_pair, keys))
    else:
        nodes = _records(project)
        found = _clusters(project, by_pair, nodes)
        if kind == "clusters":
            exports.write_clusters(out, {key: found[key] for key in nodes})
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
            exports.write_linked_dataset(out, members, vault, columns)
    return out.getvalue()


def _judgement(decision: str | None, confidence: str | None) -> Judgement:
    if decision not in (Decision.SAME, Decision.DIFFERENT):
        return Judgement()
    level = Confidence[confidence.upper()] if confidence else None
    return Judgement(Decision(decision), level)


def _label_rows(project: Project, by_pair: dict[int, PairOutcome]):
    for pair_id, (src_a, id_a, src_b, id_b, *_) in pair_records(project.id).items():
        outcome = by_pair[pair_id]
        final = _judgement(outcome.final, outcome.confidence)
        if not outcome.answers:
            yield LabelRow(src_a, id_a, src_b, id_b, final=final)
        for a in outcome.answers:
            yield LabelRow(
                src_a, id_a, src_b, id_b, _judgement(a.decision, a.confidence),
                reviewer=a.reviewer, decided_at=a.at,
                kapr_spent=round(a.kapr, 6) if a.kapr is not None else None, final=final,
            )  # fmt: skip


def _records(project: Project) -> dict[tuple[str, str], tuple[str, list[int]]]:
    """Each record as ``(source, id) → (pseudonym, [record id])``, in source order."""
    rows = db.session.execute(
        select(Record.id, Source.label, Record.external_id, Record.pseudonym)
        .join(Source, Source.id == Record.source_id)
        .where(Record.project_id == project.id)
        .order_by(Source.label, Record.position)
    )
    return {
        (label, external_id): (pseudonym, [record_id])
        for record_id, label, external_id, pseudonym in rows
    }


def _clusters(project, by_pair, nodes) -> dict[tuple[str, str], int]:
    """Cluster number per record key, from the pairs whose final answer is "same"."""
    key_of = {record_id: key for key, (_, ids) in nodes.items() for record_id in ids}
    rows = db.session.execute(
        select(PairRow.id, PairRow.record_a_id, PairRow.record_b_id).where(
            PairRow.project_id == project.id
        )
    )
    edges = [
        (key_of[a], key_of[b]) for pair_id, a, b in rows if by_pair[pair_id].final == Decision.SAME
    ]
    return exports.clusters(list(nodes), edges)


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
