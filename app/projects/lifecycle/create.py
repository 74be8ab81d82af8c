"""Create a project: check its description, then write schema, records, vault rows and pairs."""

from __future__ import annotations

import itertools
from collections.abc import Iterable, Mapping

from flask import current_app
from sqlalchemy import insert

from app.extensions import db
from app.limits import Limits
from app.models import Pair, Project, ProjectKind, Source, User
from app.projects.lifecycle.bulk import CHUNK, insert_record_rows
from app.projects.lifecycle.frequencies import store_frequencies
from app.projects.lifecycle.records import (
    Prepared,
    RecordProblems,
    prepare_records,
    read_frequencies,
)
from app.projects.lifecycle.spec import (
    ProjectSpecError,
    attribute_rows,
    parse_attributes,
    project_settings,
    record_options,
)
from app.projects.triage import (
    ItemsError,
    ScoredPairsError,
    TriageError,
    TriageSettings,
    add_scored_round,
    pairs_from_items,
)
from app.review.grid import store_indexes

__all__ = ["create_project", "create_project_checked"]


def create_project(spec: Mapping, owner: User) -> Project:
    """Create a whole project from a JSON-like description, or raise and change nothing.

    ``spec`` has ``name``, ``kind`` (``dedupe`` | ``link``), ``attributes`` (``name``,
    ``type``, ``sensitive``, ``truth``, a date's ``format``), ``records`` (or ``records_a``
    and ``records_b``), optional ``pairs`` (``[id_a, id_b]`` or ``{"a", "b",
    "match_probability", "match_weight", "match_key"}`` each; without them a dedupe project
    gets all pairs when the file is small, a link project none yet) with an optional
    ``triage`` (``docs/triage.md``), ``kappa``, ``evidence_model``, ``default_budget``,
    ``page_size``, ``allow_unsure``, ``show_scores``, ``record_ids`` (``given`` |
    ``generated``), ``invalid_dates`` (``error`` | ``missing``) and ``name_frequencies``
    (:mod:`app.projects.lifecycle.records`). Given pairs are the project's round 1
    (:mod:`app.projects.triage.rounds`). The caller commits.
    """
    return create_project_checked(spec, owner)[0]


def create_project_checked(spec: Mapping, owner: User) -> tuple[Project, Prepared]:
    """:func:`create_project`, also returning what the check found (dates kept missing)."""
    kind = spec.get("kind")
    if kind not in (ProjectKind.DEDUPE, ProjectKind.LINK):
        raise ProjectSpecError(["'kind' must be 'dedupe' or 'link'"])
    name = str(spec.get("name") or "").strip()
    if not name:
        raise ProjectSpecError(["'name' is required"])
    attributes = parse_attributes(spec.get("attributes"))
    settings = project_settings(spec)
    options = record_options(spec)
    labelled = (
        {"A": spec.get("records")}
        if kind == "dedupe"
        else {"A": spec.get("records_a"), "B": spec.get("records_b")}
    )
    problems, prepared = RecordProblems(), Prepared()
    limits = Limits.of(current_app.config)
    for label, rows in labelled.items():
        prepare_records(label, rows, attributes, problems, prepared, **options, limits=limits)
    frequencies = read_frequencies(spec.get("name_frequencies"), attributes, problems)
    if problems.total:
        raise ProjectSpecError(problems.items, total=problems.total)
    project = Project(name=name, kind=kind, owner_id=owner.id, **settings)
    project.attributes = attribute_rows(attributes)
    db.session.add(project)
    db.session.flush()
    ids = {}
    given = spec.get("pairs")
    for label, rows in prepared.rows.items():
        source = Source(project_id=project.id, label=label, record_count=len(rows))
        db.session.add(source)
        db.session.flush()
        ids[label] = insert_record_rows(
            project.id, source.id, rows, attributes, with_ids=given is None
        )
    store_indexes(project)
    if given is None:
        if spec.get("triage") is not None:
            raise ProjectSpecError(["'triage' needs scored 'pairs'"])
        _insert_pairs(project.id, _all_pairs(kind, ids))
    else:
        db.session.expire(project, ["sources"])
        _scored_pairs(project, given, spec.get("triage"), owner)
    if frequencies is not None:
        store_frequencies(project.id, frequencies)
    return project, prepared


def _scored_pairs(project: Project, given: object, raw_triage: object, owner: User) -> None:
    """The given pairs (scored or not, triaged or not) as the project's round 1."""
    try:
        scored = pairs_from_items(given)
        settings = None if raw_triage is None else TriageSettings.parse(raw_triage)
    except (ItemsError, TriageError) as exc:
        raise ProjectSpecError(exc.problems) from None
    if not len(scored):
        raise ProjectSpecError(["the project has no pairs"])
    try:
        add_scored_round(project, scored, settings, owner, item="pair")
    except ScoredPairsError as exc:
        raise ProjectSpecError(exc.problems) from None


def _all_pairs(kind: str, ids: dict[str, dict[str, int]]) -> list[tuple[int, int]]:
    """Every pair of a small deduplication project (none given); none for a link project,
    whose pairs come later (blocking, a linker's scored pairs: docs/triage.md)."""
    if kind != "dedupe":
        return []
    limit = current_app.config["ALL_PAIRS_MAX_RECORDS"]
    if len(ids["A"]) > limit:
        raise ProjectSpecError([f"give 'pairs' (or block) for more than {limit} records"])
    return list(itertools.combinations(ids["A"].values(), 2))


def _insert_pairs(project_id: int, pairs: Iterable[tuple[int, int]], rule=None) -> None:
    rows = [
        {"project_id": project_id, "record_a_id": a, "record_b_id": b, "rule": rule}
        for a, b in pairs
    ]
    for start in range(0, len(rows), CHUNK):
        db.session.execute(insert(Pair), rows[start : start + CHUNK])
