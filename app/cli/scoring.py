"""``flask scoring run``: score a project's records with Splink as a batch job (DuckDB or Spark)."""

from __future__ import annotations

import time
from pathlib import Path

import click
from flask import current_app
from flask.cli import with_appcontext

from app.extensions import db


@click.group("scoring")
def scoring() -> None:
    """Splink models and scoring of a project's records."""


@scoring.command("run")
@click.argument("project_id", type=int)
@click.option(
    "--model",
    "model_file",
    type=click.Path(exists=True, dir_okay=False, path_type=Path),
    help="A Splink model JSON to check and store first (else the project's model).",
)
@click.option(
    "--backend",
    type=click.Choice(["duckdb", "spark"]),
    help="Where Splink runs (default: SPLINK_BACKEND, else duckdb).",
)
@click.option("--as-user", "username", help="Who uploads the model (default: the project's owner).")
@with_appcontext
def run_command(
    project_id: int, model_file: Path | None, backend: str | None, username: str | None
):
    """Score PROJECT_ID's records with its Splink model; print where the predictions are."""
    from app.jobs import ChunkRunner, InlineExecutor
    from app.models import Project, User
    from app.projects.scoring import ScoringRefused, current_model, run_predictions, upload_model

    project = db.session.get(Project, project_id)
    if project is None:
        raise click.ClickException(f"no project {project_id}")
    from app.cli.custody import refuse_if_closed

    refuse_if_closed(project_id)
    if backend:
        current_app.config["SPLINK_BACKEND"] = backend
    try:
        if model_file is not None:
            user = (
                db.session.scalar(db.select(User).where(User.username == username))
                if username else project.owner
            )  # fmt: skip
            if user is None:
                raise click.ClickException(f"no user {username}")
            upload_model(project, model_file.read_bytes(), user)
            db.session.commit()
        row = current_model(project)
        if row is None:
            raise ScoringRefused(["the project has no model: give one with --model"])
        started = time.perf_counter()
        report = ChunkRunner(InlineExecutor(), lambda done, total: click.echo(f"  {done}/{total}"))
        result = run_predictions(project.id, row.id, progress=report)
    except ScoringRefused as exc:
        db.session.rollback()
        raise click.ClickException("; ".join(exc.problems)) from None
    row = db.session.get(type(row), row.id)
    click.echo(
        f"scored {result['pairs']:,} pairs with model {row.id} on {result['backend']} in "
        f"{time.perf_counter() - started:.1f} s: {row.predictions}"
    )
