"""Create and delete projects: schema, records (pseudonymised, vault split) and pairs."""

from __future__ import annotations

import itertools
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

from flask import current_app, has_app_context
from sqlalchemy import delete, insert, select

from app.core.disclosure import AttributeType, date_format
from app.extensions import db
from app.limits import Limits
from app.models import (
    EvidenceModel,
    Pair,
    Project,
    ProjectAttribute,
    ProjectKind,
    Record,
    Source,
    User,
    VaultRecord,
)
from app.projects.lifecycle.bulk import insert_records
from app.projects.lifecycle.frequencies import store_frequencies
from app.projects.lifecycle.records import (
    Prepared,
    RecordProblems,
    prepare_records,
    read_frequencies,
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

CHUNK = 5_000


class ProjectSpecError(ValueError):
    """The project description cannot be imported; ``problems`` lists why.

    ``problems`` may be the first of more: ``total`` counts them all.
    """

    def __init__(self, problems: Sequence[str], *, total: int | None = None):
        self.problems = list(problems)
        self.total = max(total or 0, len(self.problems))
        more = self.total - min(10, len(self.problems))
        super().__init__("; ".join(self.problems[:10]) + (f"; and {more} more" if more else ""))


@dataclass(frozen=True)
class AttributeSpec:
    name: str
    kind: AttributeType
    identifying: bool
    truth: bool = False  # the ground-truth column (sensitive, at most one)
    format: str | None = None  # a date's layout (app.core.disclosure.dates); None: the default ones


def parse_attributes(raw: object, *, reserved: tuple[str, ...] = ("id",)) -> list[AttributeSpec]:
    """Validate the ``attributes`` list of a project description.

    ``reserved`` names cannot be attributes (a JSON record's ``id`` is its record id).
    """
    if not isinstance(raw, list) or not raw:
        raise ProjectSpecError(["'attributes' must be a non-empty list"])
    limits = Limits.of(current_app.config) if has_app_context() else Limits()
    too_many = limits.attributes_problem(len(raw))
    if too_many is not None:  # before any of them is read
        raise ProjectSpecError([f"{too_many}; leave the others out (ignored)"])
    specs, problems, seen = [], [], set()
    for i, item in enumerate(raw):
        if not isinstance(item, Mapping) or not isinstance(item.get("name"), str):
            problems.append(f"attribute {i + 1}: needs a 'name'")
            continue
        name = item["name"].strip()
        if not name or name in reserved or name in seen:
            problems.append(f"attribute {i + 1}: name {name!r} is empty, reserved or repeated")
            continue
        seen.add(name)
        try:
            kind = AttributeType(item.get("type", "string"))
        except ValueError:
            problems.append(f"attribute {name!r}: type must be id, string, date or category")
            continue
        truth = bool(item.get("truth", False))
        if truth and item.get("sensitive") is False:
            problems.append(f"attribute {name!r}: a ground-truth column is never identifying")
            continue
        identifying = not (truth or item.get("sensitive", False))
        layout = item.get("format")
        if layout is not None:
            problem = _format_problem(name, kind, identifying, layout)
            if problem:
                problems.append(problem)
                continue
        specs.append(AttributeSpec(name, kind, identifying, truth, layout or None))
    if not problems and not any(s.identifying for s in specs):
        problems.append("at least one attribute must be identifying")
    if sum(s.truth for s in specs) > 1:
        problems.append("at most one attribute can be the ground truth")
    if problems:
        raise ProjectSpecError(problems)
    return specs


def _format_problem(name: str, kind: AttributeType, identifying: bool, layout) -> str | None:
    if kind is not AttributeType.DATE or not identifying:
        return f"attribute {name!r}: a 'format' is for identifying dates"
    try:
        date_format(layout)
    except ValueError as exc:
        return f"attribute {name!r}: {exc}"
    return None


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
    settings = _settings(spec)
    options = _record_options(spec)
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
    project.attributes = [
        ProjectAttribute(
            position=i, name=a.name, kind=a.kind.value, identifying=a.identifying, truth=a.truth
        )
        for i, a in enumerate(attributes)
    ]
    db.session.add(project)
    db.session.flush()
    ids = {}
    given = spec.get("pairs")
    for label, rows in prepared.rows.items():
        source = Source(project_id=project.id, label=label, record_count=len(rows))
        db.session.add(source)
        db.session.flush()
        ids[label] = _insert_records(
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


def _record_options(spec: Mapping) -> dict:
    problems = []
    ids = spec.get("record_ids", "given")
    if ids not in ("given", "generated"):
        problems.append("'record_ids' must be 'given' or 'generated'")
    invalid = spec.get("invalid_dates", "error")
    if invalid not in ("error", "missing"):
        problems.append("'invalid_dates' must be 'error' or 'missing'")
    if problems:
        raise ProjectSpecError(problems)
    return {"generated": ids == "generated", "invalid_dates": invalid}


def _settings(spec: Mapping) -> dict:
    problems = []
    kappa = spec.get("kappa", 1)
    if not isinstance(kappa, int) or isinstance(kappa, bool) or kappa < 1:
        problems.append("'kappa' must be a whole number >= 1")
    model = spec.get("evidence_model", EvidenceModel.ROW.value)
    if model not in (EvidenceModel.ROW, EvidenceModel.PAIR):
        problems.append("'evidence_model' must be 'row' or 'pair'")
    budget = spec.get("default_budget", 0.1)
    if not isinstance(budget, int | float) or isinstance(budget, bool) or budget < 0:
        problems.append("'default_budget' must be a number >= 0")
    page_size = spec.get("page_size", current_app.config["PAGE_SIZE"])
    if not isinstance(page_size, int) or isinstance(page_size, bool) or not 1 <= page_size <= 200:
        problems.append("'page_size' must be a whole number from 1 to 200")
    if problems:
        raise ProjectSpecError(problems)
    return {
        "kappa": kappa,
        "evidence_model": model,
        "default_budget": float(budget),
        "page_size": page_size,
        "allow_unsure": bool(spec.get("allow_unsure", False)),
        "show_scores": bool(spec.get("show_scores", False)),
    }


def _insert_records(
    project_id, source_id, rows, attributes, *, offset: int = 0, with_ids: bool = True
) -> dict[str, int]:
    """Insert records and their vault rows in chunks; return external id → record id.

    ``offset`` is the position of the first row (a file imported chunk by chunk); with
    ``with_ids=False`` the (source-wide) id map is not read back and ``{}`` is returned.
    """
    has_sensitive = any(not a.identifying for a in attributes)
    for start in range(0, len(rows), CHUNK):
        chunk = rows[start : start + CHUNK]
        insert_records(
            project_id,
            source_id,
            [row["id"] for row in chunk],
            [row["identifying"] for row in chunk],
            [row["sensitive"] for row in chunk] if has_sensitive else None,
            offset=offset + start,
        )
    if not with_ids:
        return {}
    return dict(
        db.session.execute(
            select(Record.external_id, Record.id).where(Record.source_id == source_id)
        ).all()
    )


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


def delete_project(project: Project) -> None:
    """Delete a project and everything of it, vault rows and scored pairs' files included.
    The caller commits."""
    from app.projects.scoring.service import remove_project_files

    db.session.execute(delete(VaultRecord).where(VaultRecord.project_id == project.id))
    project_id = project.id
    db.session.delete(project)
    db.session.flush()
    remove_project_files(project_id)
