"""``flask projects import``: a project from files, as the browser's upload and mapping make it.

The same steps as the pages: the files are staged and their layouts guessed (or given with
``--header`` and ``--names``), each column starts with the role, type and date layout the
mapping form would propose, ``--role``/``--type``/``--format`` change them, and the import is
checked whole (every problem counted) before anything is kept. Progress goes to stderr one
line at a time, so a log or a pipe reads it as well as a terminal.
"""

from __future__ import annotations

from pathlib import Path

import click
from flask.cli import AppGroup
from sqlalchemy import select
from werkzeug.datastructures import FileStorage

from app.extensions import db
from app.models import User
from app.projects.importing import default_role, default_type, discard, mapping_columns, previews
from app.projects.importing.layouts import (
    HEADER_CHOICES,
    guess_date_formats,
    set_layout,
    stage_upload,
)
from app.projects.importing.pending import check_plan, estimate_rows
from app.projects.importing.plans import ColumnChoice, PlanError, plan_columns
from app.projects.importing.service import import_checked
from app.projects.importing.uploads import UploadError
from app.projects.lifecycle import ProjectSpecError
from app.projects.reading import CsvImportError

projects = AppGroup(
    "projects",
    help="Import projects from files; a project's rounds of scored pairs and reblocking.",
)

_FILE = click.Path(exists=True, dir_okay=False, path_type=Path)


def _pairs(values: tuple[str, ...], option: str) -> dict[str, str]:
    out = {}
    for value in values:
        column, sep, setting = value.partition("=")
        if not sep or not column:
            raise click.BadParameter(f"{value!r}: expected COLUMN=VALUE", param_hint=option)
        out[column] = setting
    return out


def _stage(name, kind, files: dict[str, Path], owner: User, header: str, names: str | None):
    storages = {label: FileStorage(open(path, "rb"), path.name) for label, path in files.items()}  # noqa: SIM115
    try:
        staged = stage_upload(name, kind, storages, owner.id, header)
    finally:
        for storage in storages.values():
            storage.close()
    if names is not None:
        layouts = staged.meta.get("layout", {})
        set_layout(staged, {label: False for label in layouts}, names.split(","))
    return staged


def _choices(columns, guessed, kind, roles, types, formats) -> list[ColumnChoice]:
    """Each column's role, type and layout as the mapping page proposes them, with the
    options' changes."""
    with_id = kind != "pairfile"
    return [
        ColumnChoice(
            column,
            roles.get(column, default_role(column, with_id=with_id, columns=columns)),
            types.get(column, default_type(column)),
            formats.get(column, guessed.get(column, "")),
        )
        for column in columns
    ]


def _problems(exc: Exception) -> str:
    listed = [str(p) for p in getattr(exc, "problems", [exc])]
    total = getattr(exc, "total", len(listed))
    lines = [f"{total} problem{'s' if total != 1 else ''}; nothing was imported:"]
    lines += [f"  {p}" for p in listed]
    if total > len(listed):
        lines.append(f"  ... and {total - len(listed)} more ({total} in all)")
    return "\n".join(lines)


def _progress(done: int, total: int) -> None:
    click.echo(f"{done:,} of {total:,} records", err=True)


@projects.command("import")
@click.argument("name")
@click.argument("files", nargs=-1, required=True, type=_FILE)
@click.option("--kind", type=click.Choice(["link", "dedupe", "pairfile"]), required=True)
@click.option("--owner", required=True, help="The manager who owns the project.")
@click.option("--freq", type=_FILE, help="Name frequencies (F|L,name,count), any kind.")
@click.option("--header", type=click.Choice(sorted(HEADER_CHOICES)), default="auto",
              show_default=True, help="Is the first row of each file a header?")  # fmt: skip
@click.option("--names", help="Column names of a file without a header, comma-separated.")
@click.option("--role", "roles", multiple=True, metavar="COLUMN=ROLE",
              help="id, identifying, sensitive, truth or ignored.")  # fmt: skip
@click.option("--type", "types", multiple=True, metavar="COLUMN=TYPE",
              help="id, string, date or category (identifying columns).")  # fmt: skip
@click.option("--format", "formats", multiple=True, metavar="COLUMN=LAYOUT",
              help="A date's layout, e.g. dob=%Y%m%d (default: guessed).")  # fmt: skip
@click.option("--ids", type=click.Choice(["error", "keep_first", "generate"]), default="error",
              show_default=True, help="Repeated ids: reject, keep the first, or generate ids "
              "(the id column becomes the ground truth).")  # fmt: skip
@click.option("--invalid-dates", type=click.Choice(["error", "missing"]), default="error",
              show_default=True)  # fmt: skip
@click.option("--kappa", type=int, default=1, show_default=True)
@click.option("--budget", type=float, default=0.1, show_default=True, help="Default KAPR budget.")
@click.option("--page-size", type=int, default=10, show_default=True)
def import_command(name, files, kind, owner, freq, header, names, roles, types, formats, ids,
                   invalid_dates, kappa, budget, page_size):  # fmt: skip
    """Import FILES (A [B], or a pair file) as project NAME; print what was imported."""
    user = db.session.scalar(select(User).where(User.username == owner))
    if user is None or user.role != "manager":
        raise click.ClickException(f"no manager {owner!r}")
    labels = {"link": ("A", "B"), "dedupe": ("A",), "pairfile": ("pairs",)}[kind]
    if len(files) != len(labels):
        raise click.UsageError(f"a {kind} project takes {len(labels)} file(s)")
    given = dict(zip(labels, files, strict=True)) | ({"freq": freq} if freq else {})
    try:
        staged = _stage(name, kind, given, user, header, names)
    except UploadError as exc:
        raise click.ClickException(str(exc)) from None
    try:
        shown = previews(staged)
        columns = mapping_columns(staged, shown)
        guessed = guess_date_formats(staged)
        choices = _choices(columns, guessed, kind, *(_pairs(v, o) for v, o in (
            (roles, "--role"), (types, "--type"), (formats, "--format"))))  # fmt: skip
        plan = plan_columns(choices, with_id=kind != "pairfile", generate_ids=ids == "generate")
        plan |= {"header": columns, "on_duplicate_id": ids, "invalid_dates": invalid_dates,
                 "frequencies": freq is not None}  # fmt: skip
        plan["settings"] = {"kappa": kappa, "default_budget": budget, "page_size": page_size}
        check_plan(plan)
        staged.meta["rows"] = estimate_rows(staged)  # the progress lines' total
        project, checked = import_checked(staged, plan, user, progress=_progress)
    except (PlanError, ProjectSpecError, CsvImportError, UploadError) as exc:
        db.session.rollback()
        raise click.ClickException(_problems(exc)) from None
    finally:
        discard(staged)
    db.session.commit()
    click.echo(_summary(project, checked))


def _summary(project, checked) -> str:
    lines = [f"created project {project.id} {project.name!r}"]
    lines += [f"  source {label}: {n:,} records" for label, n in checked.records.items()]
    if checked.generated_ids:
        lines.append("  record ids generated from the lines (line-<n>)")
    if checked.pairs:
        blocks = f" in {checked.blocks} blocks" if checked.blocks else ""
        lines.append(f"  {checked.pairs:,} pairs{blocks}")
    if checked.frequencies:
        lines.append(f"  {checked.frequencies:,} name frequencies")
    if checked.dropped_total:
        lines.append(f"  {checked.dropped_total:,} repeated rows dropped")
    if checked.missing_total:
        lines.append(f"  {checked.missing_total:,} dates that cannot be read kept as missing:")
        lines += [f"    {where}: {n:,}" for where, n in checked.missing_columns.items()]
    return "\n".join(lines)
