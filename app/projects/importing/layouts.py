"""Whether each staged file has a header row, and the column names of those without.

On upload each file's first rows are read and its layout guessed
(:func:`app.projects.reading.layout.guess_layout`) unless the manager said "header" or "no
header"; the mapping page shows the guess and lets the manager change it and name the
columns (:func:`set_layout`). The staged upload's ``meta.json`` keeps ``layout`` (per file:
``header``, ``guessed``, ``width``) and ``names`` (one list for every file without a
header). The name-frequency file never has a header (``F|L,name,count``).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from flask import current_app

from app.core.disclosure import guess_format
from app.limits import Limits
from app.models import ProjectKind
from app.projects.importing.checked import file_label
from app.projects.importing.uploads import Staged, UploadError, discard, stage
from app.projects.reading.csvio import CsvImportError, preview
from app.projects.reading.layout import Layout, check_names, default_names, guess_layout
from app.projects.reading.pairfile import NOT_ATTRIBUTES

__all__ = [
    "FREQ_NAMES",
    "HEADER_CHOICES",
    "guess_date_formats",
    "guess_layouts",
    "names_of",
    "set_layout",
    "stage_upload",
]

#: What the upload form offers for the first row of each file.
HEADER_CHOICES = {"auto": "detect", "yes": "is the header", "no": "is data (no header row)"}
#: Column names of the name-frequency file, which has no header.
FREQ_NAMES = ("F|L", "name", "count")


def guess_layouts(staged: Staged, choice: str = "auto") -> None:
    """Record each data file's layout in ``staged`` (guessed, or as ``choice`` says).

    The first file without a header gets default names (from another file's header of its
    width, MINDFIRL's names for its display files, or ``column_<n>``).
    """
    layouts, header, headerless = {}, None, None
    for label in staged.labels():
        if label == "freq":
            continue
        try:
            found = guess_layout(staged.path(label))
        except CsvImportError:  # the mapping page reports the file's problem
            layouts[label] = {"header": True, "guessed": False, "width": None}
            continue
        _refuse_too_wide(staged, label, found)
        has_header = found.has_header if choice == "auto" else choice == "yes"
        layouts[label] = {"header": has_header, "guessed": choice == "auto", "width": found.width}
        if has_header:
            header = header or (found.first[0] if found.first else None)
        else:
            headerless = headerless or found
    staged.meta["layout"] = layouts
    staged.meta["names"] = default_names(headerless, header) if headerless else None


def _refuse_too_wide(staged: Staged, label: str, found: Layout) -> None:
    """Raise :class:`UploadError` for a file with more columns than a project can have
    attributes (``MAX_ATTRIBUTES``) besides its record id (a pair file: its structure
    columns), counted over the rows read to guess its layout."""
    spare = 1
    if staged.kind == ProjectKind.PAIRFILE and found.first:
        spare = max(1, sum(name.strip() in NOT_ATTRIBUTES for name in found.first[0]))
    what = "columns besides the record id" if spare == 1 else "columns besides the pair columns"
    problem = Limits.of(current_app.config).attributes_problem(found.widest - spare, what)
    if problem is not None:
        where = f"{file_label(label)}, line {found.widest_line}"
        raise UploadError(f"{where}: {problem}; remove the columns you do not need")


def _defaults(staged: Staged, layouts) -> list[str]:
    header = None
    try:
        for label, layout in layouts.items():
            found = guess_layout(staged.path(label))
            if layout["header"]:
                header = header or (found.first[0] if found.first else None)
        first = next(label for label, layout in layouts.items() if not layout["header"])
        return default_names(guess_layout(staged.path(first)), header)
    except CsvImportError as exc:
        raise UploadError(str(exc)) from None


def stage_upload(
    name: str, kind: str, files: Mapping[str, object], owner_id: int, header: str = "auto"
) -> Staged:
    """Stage the uploaded ``files`` (:func:`~app.projects.importing.uploads.stage`) and
    record their layouts; ``header`` is one of :data:`HEADER_CHOICES`."""
    if header not in HEADER_CHOICES:
        raise UploadError("the first row of each file is detected, the header, or data")
    staged = stage(name, kind, files, owner_id)
    try:
        staged.meta["header_choice"] = header
        guess_layouts(staged, header)
        staged.save()
    except BaseException:  # a refused upload is deleted at once, not left for the sweep
        discard(staged)
        raise
    return staged


def names_of(staged: Staged, label: str) -> list[str] | None:
    """The column names of ``label``'s file when it has no header row, else None."""
    if label == "freq":
        return list(FREQ_NAMES)
    layout = staged.meta.get("layout", {}).get(label, {})
    return None if layout.get("header", True) else list(staged.meta.get("names") or [])


def set_layout(staged: Staged, headers: Mapping[str, bool], names: Sequence[str]) -> None:
    """Set which files have a header row and name the columns of the others (saved).

    No ``names`` for a headerless file: the defaults of :func:`guess_layouts`. Raises
    :class:`UploadError` listing the problems (names repeated, or not one per column of a
    headerless file); nothing is changed then.
    """
    layouts = {label: dict(v) for label, v in staged.meta.get("layout", {}).items()}
    for label, has_header in headers.items():
        if label in layouts:
            layouts[label]["header"], layouts[label]["guessed"] = bool(has_header), False
    names = [n.strip() for n in names if n.strip()] and [n.strip() for n in names]
    headerless = [(label, v.get("width")) for label, v in layouts.items() if not v["header"]]
    if headerless and not names:
        names = _defaults(staged, layouts)
    problems = []
    for label, width in headerless:
        problems += [f"{file_label(label)}: {p}" for p in check_names(names, width)]
    if problems:
        raise UploadError("; ".join(dict.fromkeys(problems)))
    staged.meta["layout"] = layouts
    staged.meta["names"] = names if headerless else None
    staged.save()


#: Rows read to guess each column's date layout (a few swapped days must not decide it).
FORMAT_SAMPLE = 500


def guess_date_formats(staged: Staged) -> dict[str, str]:
    """``{column: layout}`` of the data file's columns, from its first rows: the layout that
    reads the most values, the default one (``""``) when it reads as many."""
    label = "pairs" if staged.has("pairs") else "A"
    try:
        shown = preview(staged.path(label), FORMAT_SAMPLE, names=names_of(staged, label))
    except CsvImportError:
        return {}
    return {
        column: guess_format([row[i] for row in shown.rows if i < len(row)])
        for i, column in enumerate(shown.header)
    }
