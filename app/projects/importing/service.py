"""Create a project from staged uploads: preview, then check every row while writing it.

The three ways of the managers' workflow: link two files (A and B), deduplicate one file,
or import a MINDFIRL pair file; each with an optional name-frequency file. Rows are validated
as they are written, inside the caller's transaction (or, for a job, into a project still
``importing`` that a failure deletes), so a bad file leaves the database unchanged;
:mod:`app.projects.importing.pending.waiting` keeps the written project waiting for its manager.

The plan (the mapping form as data) says per column its role and type, a date column's
layout (``formats``), whether unreadable dates reject the file or are kept as missing
(``invalid_dates``), and whether record ids come from the id column or are generated
(``on_duplicate_id == "generate"``: ``id_column`` is then None). Files without a header row
are read under the names the manager gave (:mod:`app.projects.importing.layouts`).
"""

from __future__ import annotations

from flask import current_app

from app.core.disclosure import CLUSTER_COLUMNS, AttributeType, name_columns
from app.extensions import db
from app.limits import Limits
from app.models import (
    Project,
    ProjectState,
    User,
)
from app.models import ProjectKind as Kind
from app.projects.importing.checked import Checked, file_label, labelled
from app.projects.importing.layouts import names_of
from app.projects.importing.pairfiles import import_pairfile, new_source, store_frequency_file
from app.projects.importing.recovery import importer_id
from app.projects.importing.uploads import Staged
from app.projects.lifecycle.bulk import insert_columns
from app.projects.lifecycle.spec import (
    AttributeSpec,
    attribute_rows,
    parse_attributes,
    project_settings,
)
from app.projects.reading.csvio import CsvImportError, Preview, preview
from app.projects.reading.mapping import ColumnMapping
from app.projects.reading.pairfile import (
    NOT_ATTRIBUTES,
    PAIRFILE_ATTRIBUTES,
)
from app.projects.reading.records import stream_batches
from app.review.grid import store_indexes

__all__ = [
    "Checked",
    "default_type",
    "fill_import",
    "finish_import",
    "import_checked",
    "import_upload",
    "start_import",
    "mapping_columns",
    "previews",
]


def previews(staged: Staged, rows: int = 5) -> dict[str, Preview]:
    """The header and first rows of each staged file (raises :class:`CsvImportError`)."""
    out = {}
    for label in staged.labels():
        names = names_of(staged, label)
        out[label] = labelled(file_label(label), preview, staged.path(label), rows, names=names)
    return out


def mapping_columns(staged: Staged, shown: dict[str, Preview]) -> list[str]:
    """The columns to map: file A's header (attribute columns only for a pair file)."""
    first = shown["pairs" if staged.kind == Kind.PAIRFILE else "A"]
    return [h for h in first.header if staged.kind != Kind.PAIRFILE or h not in NOT_ATTRIBUTES]


def _mapping(plan: dict) -> ColumnMapping:
    return ColumnMapping(
        plan["id_column"], plan["identifying"], tuple(plan["sensitive"]),
        formats=plan.get("formats") or {}, invalid_dates=plan.get("invalid_dates", "error"),
    )  # fmt: skip


def _attributes(plan: dict, header: list[str]) -> list[AttributeSpec]:
    """The project schema in header order (raises ``ProjectSpecError``)."""
    raw = []
    for column in header:
        if column in plan["identifying"]:
            kind = plan["identifying"][column]
            raw.append({"name": column, "type": kind, "format": _format(plan, column)})
        elif column in plan["sensitive"]:
            raw.append({"name": column, "sensitive": True, "truth": column == plan.get("truth")})
    # A file's own column may be called "id": record ids live apart from the attributes.
    return parse_attributes(raw, reserved=())


def _format(plan: dict, column: str) -> str | None:
    return (plan.get("formats") or {}).get(column) or None


def default_type(column: str) -> str:
    """The type a column starts with on the mapping form (MINDFIRL's for its columns; a
    date for a name that says so, such as FEBRL's ``date_of_birth``)."""
    if column in PAIRFILE_ATTRIBUTES:
        return PAIRFILE_ATTRIBUTES[column].value
    lowered = column.lower()
    if lowered in ("dob", "date") or "date" in lowered or "birth" in lowered:
        return AttributeType.DATE.value
    return AttributeType.STRING.value


#: Names of a record id column, in the order one is proposed (FEBRL's ``rec_id``, Splink's
#: ``unique_id``, ...); the first a file has is its id column.
ID_COLUMNS = ("id", "rec_id", "record_id", "unique_id", "recid", "uid")


def id_column(columns) -> str | None:
    """The column of ``columns`` proposed as the record id (see :data:`ID_COLUMNS`)."""
    lowered = {c.lower(): c for c in reversed(list(columns))}
    return next((lowered[name] for name in ID_COLUMNS if name in lowered), None)


def default_role(column: str, *, with_id: bool, columns=None) -> str:
    """The role a column starts with: private by default, only names and dates identifying.

    A column is *sensitive* (never shown to workers) unless its name says it holds a
    person's name or a date, or it is the record id of a linked file (of ``columns``, the
    file's, the first named as in :data:`ID_COLUMNS`; ``id`` without them); one named like
    a cluster id (``cluster_id``, ``true_id``, ...) is the ground *truth* (sensitive as
    well). MINDFIRL's helper strings and zero columns (``helper_*``, ``zero_*``) are left out.
    """
    lowered = column.lower()
    is_id = lowered == "id" if columns is None else column == id_column(columns)
    if with_id and is_id:
        return "id"
    if lowered in CLUSTER_COLUMNS:
        return "truth"
    if lowered.startswith(("helper_", "zero_")):
        return "ignored"
    named = "name" in lowered or any(name_columns([column]))
    if named or default_type(column) == AttributeType.DATE.value:
        return "identifying"
    return "sensitive"


def import_upload(staged: Staged, plan: dict, owner: User, progress=None) -> Project:
    """Create the project of ``staged`` as ``plan`` says. The caller commits (or rolls back).

    Raises :class:`CsvImportError` (a file changed or is invalid) or ``ProjectSpecError``
    (settings); the caller must then roll back, and nothing is left behind.
    ``progress(done, total)``, if given, is called after every chunk of records.
    """
    return import_checked(staged, plan, owner, progress)[0]


def import_checked(
    staged: Staged, plan: dict, owner: User, progress=None
) -> tuple[Project, Checked]:
    """:func:`import_upload`, also returning what the check found."""
    project = start_import(staged, plan, owner)
    checked = fill_import(project, staged, plan, progress)
    finish_import(project)
    return project, checked


def start_import(staged: Staged, plan: dict, owner: User, job_id: int | None = None) -> Project:
    """Create the project, ``importing``, and its schema (no records yet); flush."""
    attributes = _attributes(plan, plan["header"])
    settings = project_settings(plan["settings"])
    project = Project(
        name=staged.meta["name"], kind=staged.kind, owner_id=owner.id, **settings,
        state=ProjectState.IMPORTING.value, import_owner=importer_id(),
        import_token=staged.token, import_job_id=job_id,
    )  # fmt: skip
    project.attributes = attribute_rows(attributes)
    db.session.add(project)
    db.session.flush()
    return project


def fill_import(project: Project, staged: Staged, plan: dict, progress=None) -> Checked:
    """Validate and write the records (chunk by chunk), pairs and name counts of ``staged``.

    One pass: each file is read once, every row checked while the clean batches are
    written; a bad row raises :class:`CsvImportError` after every file was read to its end
    (the first 100 problems of each listed, all counted), and the caller rolls back or
    deletes ``project``. Returns what the check found (counts, rows dropped as duplicates,
    dates kept as missing). Files are streamed: no more than a chunk of records is held at
    once (pair files, which must be cross-checked whole, excepted), and of the others only
    their identifying values, from which each source's anonymity-set index is built and
    stored at the end (:func:`~app.review.grid.store_indexes`, without reading the records
    back). ``progress(done, total)`` counts records. Flushes.
    """
    attributes = _attributes(plan, plan["header"])
    total, done = int(staged.meta.get("rows") or 0), 0
    written: dict[int, dict[str, list]] = {}  # each source's identifying values, for its index
    if staged.kind == Kind.PAIRFILE:
        checked = import_pairfile(project, staged, plan, attributes)
        done = sum(s.record_count for s in project.sources)
    else:
        checked = Checked(generated_ids=plan["id_column"] is None)
        mapping, policy = _mapping(plan), plan.get("on_duplicate_id", "error")
        policy = "error" if policy == "generate" else policy
        has_sensitive = any(not a.identifying for a in attributes)
        failed: list[CsvImportError] = []
        for label in staged.record_labels():
            source = new_source(project, label, staged.meta["filenames"].get(label))
            values = written[source.id] = {name: [] for name in mapping.identifying}
            names, named = names_of(staged, label), file_label(label)
            try:
                for batch in _batches(named, staged.path(label), mapping, policy, names):
                    checked.note_dropped(named, (p for d, p in batch.problems if d))
                    checked.note_missing(named, batch.missing)
                    if failed:  # an earlier file is bad: only check this one
                        continue
                    insert_columns(
                        project.id, source.id, batch.ids, batch.columns,
                        batch.secret if has_sensitive else None, offset=source.record_count,
                    )  # fmt: skip
                    for name, column in batch.columns.items():
                        values[name] += column
                    source.record_count += len(batch)
                    done += len(batch)
                    if progress is not None:
                        db.session.flush()
                        progress(done, max(total, done))
            except CsvImportError as exc:
                failed.append(exc)
            checked.records[label] = source.record_count
        if failed:
            problems = [p for exc in failed for p in exc.problems]
            raise CsvImportError(problems, total=sum(exc.total for exc in failed))
        if staged.has("freq"):
            checked.frequencies = store_frequency_file(project, staged)
    # The indexes now, from the values in hand (a pair file's are read back): the job does
    # this work, not the manager's confirmation.
    store_indexes(project, written)
    if progress is not None:
        progress(done, max(total, done))
    return checked


def finish_import(project: Project) -> None:
    """Make the complete project visible (its indexes were stored with its records); flush."""
    project.state = ProjectState.READY.value
    project.import_owner = project.import_token = project.import_job_id = None
    db.session.flush()


def _batches(label: str, path, mapping: ColumnMapping, policy: str, names=None):
    """The file's clean batches, read once; after them :class:`CsvImportError` (its problems
    prefixed with ``label``) if any row is bad. ``names``: a headerless file's columns."""
    batches = stream_batches(
        path, mapping, on_duplicate_id=policy, names=names, limits=Limits.of(current_app.config),
    )  # fmt: skip
    while True:
        batch = labelled(label, next, batches, None)
        if batch is None:
            return
        yield batch
