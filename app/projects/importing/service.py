"""Create a project from staged uploads: preview, then check every row while writing it.

The three ways of the managers' workflow: link two files (A and B), deduplicate one file,
or import a MINDFIRL pair file with its optional name-frequency file. Rows are validated as
they are written, inside the caller's transaction (or, for a job, into a project still
``importing`` that a failure deletes), so a bad file leaves the database unchanged;
:mod:`app.projects.importing.pending` keeps the written project waiting for its manager.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from flask import current_app
from sqlalchemy import insert

from app.core.disclosure import CLUSTER_COLUMNS, AttributeType
from app.extensions import db
from app.models import (
    NameFrequency,
    Pair,
    Project,
    ProjectAttribute,
    ProjectState,
    Source,
    User,
)
from app.models import ProjectKind as Kind
from app.projects.importing.recovery import importer_id
from app.projects.importing.uploads import Staged
from app.projects.lifecycle.bulk import insert_columns
from app.projects.lifecycle.service import (
    CHUNK,
    AttributeSpec,
    _insert_records,
    _settings,
    parse_attributes,
)
from app.projects.reading.csvio import CsvImportError, ImportProblem, Preview, preview
from app.projects.reading.pairfile import (
    NOT_ATTRIBUTES,
    PAIRFILE_ATTRIBUTES,
    read_name_frequencies,
    read_pairfile,
)
from app.projects.reading.records import (
    ColumnMapping,
    stream_batches,
)

__all__ = [
    "Checked",
    "default_type",
    "fill_import",
    "finish_import",
    "import_upload",
    "start_import",
    "mapping_columns",
    "previews",
]


@dataclass
class Checked:
    """What validation found: per file its record count, and rows dropped as duplicates."""

    records: dict[str, int] = field(default_factory=dict)
    dropped: list[str] = field(default_factory=list)
    pairs: int = 0
    blocks: int = 0
    frequencies: int = 0


def previews(staged: Staged, rows: int = 5) -> dict[str, Preview]:
    """The header and first rows of each staged file (raises :class:`CsvImportError`)."""
    out = {}
    for label in staged.labels():
        out[label] = _labelled(label, preview, staged.path(label), rows)
    return out


def mapping_columns(staged: Staged, shown: dict[str, Preview]) -> list[str]:
    """The columns to map: file A's header (attribute columns only for a pair file)."""
    first = shown["pairs" if staged.kind == Kind.PAIRFILE else "A"]
    return [h for h in first.header if staged.kind != Kind.PAIRFILE or h not in NOT_ATTRIBUTES]


def _labelled(label, function, *args, **kwargs):
    """Call ``function``, prefixing every problem's message with the file it is about."""
    try:
        return function(*args, **kwargs)
    except CsvImportError as exc:
        problems = [ImportProblem(p.line, p.column, f"{label}: {p.message}") for p in exc.problems]
        raise CsvImportError(problems, truncated=exc.truncated) from None


def _mapping(plan: dict) -> ColumnMapping:
    return ColumnMapping(plan["id_column"], plan["identifying"], tuple(plan["sensitive"]))


def _attributes(plan: dict, header: list[str]) -> list[AttributeSpec]:
    """The project schema in header order (raises ``ProjectSpecError``)."""
    raw = []
    for column in header:
        if column in plan["identifying"]:
            raw.append({"name": column, "type": plan["identifying"][column]})
        elif column in plan["sensitive"]:
            raw.append({"name": column, "sensitive": True, "truth": column == plan.get("truth")})
    return parse_attributes(raw)


def _read_pairfile(staged: Staged, plan: dict):
    # Sensitive and ignored columns are read as plain strings: only shown columns are typed.
    shown = plan["identifying"]
    kinds = {name: AttributeType(shown.get(name, "string")) for name in plan["header"]}
    return _labelled("pair file", read_pairfile, staged.path("pairs"), attributes=kinds)


def default_type(column: str) -> str:
    """The type a column starts with on the mapping form (MINDFIRL's for its columns)."""
    return PAIRFILE_ATTRIBUTES.get(column, AttributeType.STRING).value


def default_role(column: str, *, with_id: bool) -> str:
    """The role a column starts with: private by default, only names and dates identifying.

    A column is *sensitive* (never shown to workers) unless its name says it holds a
    person's name or a date, or it is the record id of a linked file; one named like a
    cluster id (``cluster_id``, ``true_id``, ...) is the ground *truth* (sensitive as well).
    """
    lowered = column.lower()
    if with_id and lowered == "id":
        return "id"
    if lowered in CLUSTER_COLUMNS:
        return "truth"
    if "name" in lowered or lowered in ("dob", "date") or default_type(column) == "date":
        return "identifying"
    return "sensitive"


def import_upload(staged: Staged, plan: dict, owner: User, progress=None) -> Project:
    """Create the project of ``staged`` as ``plan`` says. The caller commits (or rolls back).

    Raises :class:`CsvImportError` (a file changed or is invalid) or ``ProjectSpecError``
    (settings); the caller must then roll back, and nothing is left behind.
    ``progress(done, total)``, if given, is called after every chunk of records.
    """
    project = start_import(staged, plan, owner)
    fill_import(project, staged, plan, progress)
    finish_import(project)
    return project


def start_import(staged: Staged, plan: dict, owner: User, job_id: int | None = None) -> Project:
    """Create the project, ``importing``, and its schema (no records yet); flush."""
    attributes = _attributes(plan, plan["header"])
    settings = _settings(plan["settings"])
    project = Project(
        name=staged.meta["name"], kind=staged.kind, owner_id=owner.id, **settings,
        state=ProjectState.IMPORTING.value, import_owner=importer_id(),
        import_token=staged.token, import_job_id=job_id,
    )  # fmt: skip
    project.attributes = [
        ProjectAttribute(
            position=i, name=a.name, kind=a.kind.value, identifying=a.identifying, truth=a.truth
        )
        for i, a in enumerate(attributes)
    ]
    db.session.add(project)
    db.session.flush()
    return project


def fill_import(project: Project, staged: Staged, plan: dict, progress=None) -> Checked:
    """Validate and write the records (chunk by chunk) and pairs of ``staged``; flush.

    One pass: each file is read once, every row checked while the clean batches are
    written; a bad row raises :class:`CsvImportError` after the file was read on (up to 100
    problems), and the caller rolls back or deletes ``project``. Returns what the check
    found (counts, rows dropped as duplicates). Files are streamed: no more than a chunk of
    records is held at once (pair files, which must be cross-checked whole, excepted).
    ``progress(done, total)`` counts records.
    """
    attributes = _attributes(plan, plan["header"])
    total, done = int(staged.meta.get("rows") or 0), 0
    checked = Checked()
    if staged.kind == Kind.PAIRFILE:
        checked = _import_pairfile(project, staged, plan, attributes)
        done = sum(s.record_count for s in project.sources)
    else:
        mapping, policy = _mapping(plan), plan.get("on_duplicate_id", "error")
        has_sensitive = any(not a.identifying for a in attributes)
        for label in staged.labels():
            source = _source(project, label, staged.meta["filenames"].get(label))
            for batch in _batches(f"file {label}", staged.path(label), mapping, policy):
                insert_columns(
                    project.id, source.id, batch.ids, batch.columns,
                    batch.secret if has_sensitive else None, offset=source.record_count,
                )  # fmt: skip
                source.record_count += len(batch)
                done += len(batch)
                checked.dropped += [
                    f"file {label}: {p}" for dropped, p in batch.problems if dropped
                ]
                if progress is not None:
                    db.session.flush()
                    progress(done, max(total, done))
            checked.records[label] = source.record_count
    db.session.flush()
    if progress is not None:
        progress(done, max(total, done))
    return checked


def finish_import(project: Project) -> None:
    """Make the complete project visible; flush."""
    project.state = ProjectState.READY.value
    project.import_owner = project.import_token = project.import_job_id = None
    db.session.flush()


def _max_value_chars() -> int | None:
    return current_app.config.get("MAX_VALUE_CHARS")


def _batches(label: str, path, mapping: ColumnMapping, policy: str):
    """The file's clean batches, read once; after them :class:`CsvImportError` (its problems
    prefixed with ``label``) if any row is bad."""
    batches = stream_batches(
        path, mapping, on_duplicate_id=policy, max_value_chars=_max_value_chars()
    )
    while True:
        batch = _labelled(label, next, batches, None)
        if batch is None:
            return
        yield batch


def _source(project: Project, label: str, filename: str | None) -> Source:
    source = Source(project_id=project.id, label=label, filename=filename, record_count=0)
    db.session.add(source)
    db.session.flush()
    return source


def _import_pairfile(project: Project, staged: Staged, plan: dict, attributes) -> Checked:
    parsed = _read_pairfile(staged, plan)
    checked = Checked(
        pairs=len(parsed.pairs), blocks=len({p.block_id for p in parsed.pairs if p.block_id})
    )
    ids = {}
    for label, records in (("A", parsed.records_a), ("B", parsed.records_b)):
        source = _source(project, label, staged.meta["filenames"].get("pairs"))
        rows = [
            {
                "id": record_id,
                "identifying": {a.name: values[a.name] for a in attributes if a.identifying},
                "sensitive": {a.name: values[a.name] for a in attributes if not a.identifying},
            }
            for record_id, values in records.items()
        ]
        source.record_count = checked.records[label] = len(rows)
        ids[label] = _insert_records(project.id, source.id, rows, attributes)
    # A record pair the file repeats (under another PairID) is one more pair over the same
    # two records: each record is stored once, so anonymity sets count it once.
    rows = [
        {
            "project_id": project.id,
            "record_a_id": ids["A"][p.id_a],
            "record_b_id": ids["B"][p.id_b],
            "external_id": p.pair_id[:100],
            "block": p.block_id[:100],
            "rule": "pair file",
        }
        for p in parsed.pairs
    ]
    for start in range(0, len(rows), CHUNK):
        db.session.execute(insert(Pair), rows[start : start + CHUNK])
    # An uploaded frequency file wins over the counts an internal pair file carries.
    freq = parsed.frequencies
    if staged.has("freq"):
        freq = _labelled("name frequencies", read_name_frequencies, staged.path("freq"))
    if freq is not None:
        checked.frequencies = len(freq.first) + len(freq.last)
        rows = [
            {"project_id": project.id, "kind": kind, "name": name[:200], "count": count}
            for kind, table in (("F", freq.first), ("L", freq.last))
            for name, count in table.items()
        ]
        if rows:
            db.session.execute(insert(NameFrequency), rows)
    return checked
