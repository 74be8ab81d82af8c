"""Which export, checked, and its text: streamed a chunk at a time or written whole.

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
All but ``recordlinkage`` and ``legacy`` are streamed (:mod:`app.projects.exports.streams`);
:func:`whole_csv` builds any of them whole (:mod:`app.projects.exports.whole`), the oracle.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping
from dataclasses import dataclass

from sqlalchemy import func, select

from app.extensions import db
from app.models import REVIEWED, Project, ProjectKind, Purpose
from app.models import Pair as PairRow
from app.projects.exports import linkage, streams
from app.projects.exports.whole import whole_export

__all__ = [
    "KINDS",
    "STREAMED",
    "VALUE_KINDS",
    "ExportOptionError",
    "ExportOptions",
    "ExportRefused",
    "export_chunks",
    "export_csv",
    "export_filename",
    "export_mimetype",
    "label_purpose",
    "whole_csv",
]

KINDS = (
    "labels", "splink", "splink_matches", "recordlinkage", "legacy", "clusters", "linked",
    "linkage",
)  # fmt: skip
_JSON_KINDS = ("recordlinkage",)
#: Exports written a chunk at a time while they are sent (:func:`export_chunks`).
STREAMED = ("labels", "splink", "splink_matches", "clusters", "linked", "linkage")
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
    streaming). The kinds of :data:`STREAMED` are read from the database and written a chunk
    at a time (:mod:`app.projects.exports.streams`), so a million pairs are never a list in
    memory: an iterator, to send with the request's context. The others (a JSON document,
    MINDFIRL's layout) are written whole and come as a list of one piece (nothing left to
    stream, no context to keep: see :func:`app.projects.views.access.export_download`).
    """
    options = options or ExportOptions()
    _check_kind(project, kind)
    if kind in ("splink", "splink_matches"):
        purpose, _ = label_purpose(project, kind, options)
        return streams.splink_chunks(
            project, purpose, kind == "splink_matches", options.score == "confidence"
        )
    if kind == "labels":
        return streams.label_chunks(project, options.purpose)
    if kind == "linkage":
        return streams.in_chunks(
            lambda out, part, header: out.write(linkage.linkage_text(part, header)),
            linkage.final_pairs(project),
        )
    if kind in ("clusters", "linked"):
        return streams.cluster_chunks(project, kind)
    return [whole_export(project, kind, options.purpose, options.score)]


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
    """The text of export ``kind`` for ``project`` (CSV, or JSON for ``recordlinkage``): the
    pieces of :func:`export_chunks` joined, so a download and the close-out's hash see the
    same bytes."""
    return "".join(export_chunks(project, kind, options))


def whole_csv(project: Project, kind: str, options: ExportOptions | None = None) -> str:
    """The same text built whole in memory (:mod:`app.projects.exports.whole`): the oracle
    of :func:`export_chunks` in tests and ``bench/``."""
    options = options or ExportOptions()
    _check_kind(project, kind)
    purpose = options.purpose
    if kind in ("splink", "splink_matches"):
        purpose, _ = label_purpose(project, kind, options)
    return whole_export(project, kind, purpose, options.score)
