"""``flask projects accountability|close|close-due|auto-close``: the end of a project.

``close`` writes the final exports (and their ``SHA256SUMS``) to ``--out`` before it
destroys anything; ``close-due`` (run daily, e.g. from cron) closes every project whose
``auto_close_days`` have passed since completion, writing its exports under the archive
folder (``--out``, else ``CLOSEOUT_ARCHIVE_DIR``, else ``instance/closeouts``), and erases
from the database files what an earlier close-out could not yet (``erase_storage``).
"""

from __future__ import annotations

import json
from pathlib import Path

import click
from flask import current_app
from sqlalchemy import select

from app.cli.projects import projects
from app.extensions import db
from app.models import Project, User
from app.projects.custody import (
    CloseOutRefused,
    RecordNotFound,
    close_due,
    close_project,
    describe,
    digest,
    disclosure_summary,
    erase_storage,
    final_exports,
    finish_destruction,
    pending_erasures,
    record_disclosures,
    set_auto_close,
    write_exports,
)
from app.projects.custody.gate import closed_message

_DIR = click.Path(file_okay=False, path_type=Path)


def refuse_if_closed(project_id: int) -> None:
    """Stop a command that needs ``project_id``'s values once it is closed out."""
    closed_at = db.session.scalar(select(Project.closed_at).where(Project.id == project_id))
    if closed_at is not None:
        raise click.ClickException(closed_message(project_id, closed_at))


def _project(project_id: int) -> Project:
    project = db.session.get(Project, project_id)
    if project is None:
        raise click.ClickException(f"no project {project_id}")
    return project


@projects.command("accountability")
@click.argument("project_id", type=int)
@click.option("--source", default="A", show_default=True, help="The record's source label.")
@click.option("--record", "record_id", help="A record id: its disclosures (else the summary).")
@click.option("--json", "as_json", is_flag=True, help="Print JSON.")
def accountability_command(project_id: int, source: str, record_id: str | None, as_json: bool):
    """Who saw what of whom: people by what was disclosed, or one record's disclosures."""
    project = _project(project_id)
    if record_id is not None:
        try:
            found = record_disclosures(project, source, record_id)
        except RecordNotFound as exc:
            raise click.ClickException(str(exc)) from None
        if as_json:
            click.echo(json.dumps(found.as_json(), indent=2))
            return
        click.echo(f"record {found.record} of source {found.source}: highest {found.highest}")
        for d in found.disclosures:
            click.echo(
                f"{d.at:%Y-%m-%d %H:%M:%S} {d.worker} (assignment {d.assignment}, pair "
                f"{d.pair}) {d.attribute}: {d.level_from} -> {d.level}, chars {d.chars}, {d.how}"
            )
        return
    summary = disclosure_summary(project)
    if as_json:
        click.echo(json.dumps(summary.as_json(), indent=2))
        return
    click.echo(f"{summary.records} records, {summary.reveals} reveals")
    for attribute, nothing, something, everything in summary.rows():
        click.echo(f"{attribute}: nothing {nothing}, something {something}, all {everything}")


@projects.command("close")
@click.argument("project_id", type=int)
@click.option("--by", "username", required=True, help="The project's manager.")
@click.option("--out", required=True, type=_DIR, help="Folder for the final exports.")
def close_command(project_id: int, username: str, out: Path):
    """Close a finished project: write its final exports, then destroy its values."""
    project = _project(project_id)
    user = db.session.scalar(select(User).where(User.username == username))
    if user is None or user.id != project.owner_id:
        raise click.ClickException(f"{username!r} is not the manager of project {project_id}")
    if project.closed:
        raise click.ClickException("this project is closed out already")
    files = final_exports(project)
    write_exports(files, out)
    try:
        row = close_project(project, user, files=files)
    except CloseOutRefused as exc:
        db.session.rollback()
        raise click.ClickException(str(exc)) from None
    destroyed, sums = row.destroyed, digest(row.exports)
    db.session.commit()
    erasure = erase_storage([project_id])
    click.echo(f"closed out project {project_id}; exports in {out} (digest {sums})")
    for what, count in destroyed.items():
        click.echo(f"  destroyed {what}: {count}")
    click.echo(f"  {describe(erasure)}")
    for line in erasure.detail["beyond_reach"]:
        click.echo(f"  beyond the application's reach: {line}")


@projects.command("close-due")
@click.option("--out", type=_DIR, help="Archive folder (default CLOSEOUT_ARCHIVE_DIR).")
def close_due_command(out: Path | None):
    """Close every project due for automatic close-out; finish any destruction left over."""
    archive = out or Path(
        current_app.config.get("CLOSEOUT_ARCHIVE_DIR")
        or Path(current_app.instance_path, "closeouts")
    )
    done = [(item.closeout.project_id, item.directory) for item in close_due(archive)]
    left = finish_destruction()
    db.session.commit()
    pending = pending_erasures()  # these closed now, and any an earlier pass could not finish
    erasure = erase_storage(pending)
    for project_id, directory in done:
        click.echo(f"closed out project {project_id}; exports in {directory}")
    click.echo(
        f"{len(done)} project(s) closed" + (f"; {left} vault row(s) removed" if left else "")
    )
    if erasure is not None:
        click.echo(f"{len(pending)} project(s) destroyed, {describe(erasure)}")


@projects.command("auto-close")
@click.argument("project_id", type=int)
@click.argument("days")
def auto_close_command(project_id: int, days: str):
    """Close PROJECT_ID automatically DAYS after completion (``off``: never)."""
    project = _project(project_id)
    try:
        set_auto_close(project, None if days == "off" else int(days))
    except ValueError:
        raise click.ClickException("DAYS is a whole number from 0, or off") from None
    db.session.commit()
    click.echo(
        f"project {project_id}: automatic close-out "
        + ("off" if days == "off" else f"{days} day(s) after completion")
    )
