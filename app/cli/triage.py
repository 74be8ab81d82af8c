"""``flask projects triage|reblock|rounds``: a project's rounds of pairs from the command line.

The commands join the ``projects`` group of :mod:`app.cli.projects`.

``triage`` imports a linker's scored pairs (Splink's predict output, CSV or Parquet) into a
project as its next round, as the browser's triage step and ``POST
/api/v1/projects/<id>/predictions`` do; ``--preview`` prints the counts without writing.
The round is recorded as made by the project's manager. See docs/triage.md.
"""

from __future__ import annotations

import json
from pathlib import Path

import click

from app.cli.custody import refuse_if_closed
from app.cli.projects import projects
from app.extensions import db
from app.models import Project
from app.projects.blocking import BlockingRefused
from app.projects.reading.predictions import PredictionsError
from app.projects.triage import (
    ScoredPairsError,
    TriageError,
    TriageSettings,
    add_scored_round,
    preview_scores,
    read_scores,
    reblock_round,
)
from app.projects.triage.summary import round_summaries

REFUSED = (PredictionsError, ScoredPairsError, TriageError)


def _project(project_id: int) -> Project:
    project = db.session.get(Project, project_id)
    if project is None or project.state != "ready":
        raise click.ClickException(f"no project {project_id}")
    return project


def _refused(exc: Exception) -> click.ClickException:
    problems = getattr(exc, "problems", [str(exc)])
    return click.ClickException("\n  ".join(["refused:", *problems[:25]]))


def _show(counts: dict, as_json: bool, extra: dict) -> None:
    if as_json:
        click.echo(json.dumps({**extra, "counts": counts}, sort_keys=True))
        return
    for key, value in extra.items():
        click.echo(f"{key}: {value}")
    for key in ("pairs", "above", "inside", "below", "calibration", "review", "model_match",
                "model_non_match", "present", "skipped", "clusters"):  # fmt: skip
        if key in counts:
            click.echo(f"  {key:16} {counts[key]:>12,}")


@projects.command("triage")
@click.argument("project_id", type=int)
@click.argument("predictions", type=click.Path(exists=True, dir_okay=False, path_type=Path))
@click.option("--lower", type=float, help="Below: a non-match decided by the model.")
@click.option("--upper", type=float, help="Above: a match decided by the model.")
@click.option("--calibration", type=click.IntRange(min=0), default=0, show_default=True,
              help="Pairs drawn across the whole score range for review.")  # fmt: skip
@click.option("--seed", type=click.IntRange(min=0), default=0, show_default=True)
@click.option("--score", type=click.Choice(["probability", "weight"]), default="probability",
              show_default=True, help="What the thresholds apply to.")  # fmt: skip
@click.option("--order", type=click.Choice(["uncertainty", "file"]), default="uncertainty",
              show_default=True, help="Review order of the band.")  # fmt: skip
@click.option("--bins", type=click.IntRange(1, 100), default=10, show_default=True,
              help="Match-weight bins the calibration sample is stratified by.")  # fmt: skip
@click.option("--source-a", default=None, help="The file's name of source A (if ids cannot tell).")
@click.option("--source-b", default=None, help="The file's name of source B.")
@click.option("--preview", is_flag=True, help="Count without writing anything.")
@click.option("--json", "as_json", is_flag=True, help="Print JSON.")
def triage_command(project_id, predictions, lower, upper, calibration, seed, score, order, bins,
                   source_a, source_b, preview, as_json) -> None:  # fmt: skip
    """Import PREDICTIONS (CSV or Parquet) into PROJECT_ID as its next round, triaged."""
    project = _project(project_id)
    refuse_if_closed(project_id)
    sources = {k: v for k, v in (("A", source_a), ("B", source_b)) if v} or None
    given = lower is not None or upper is not None
    raw = {"lower": lower, "upper": upper, "calibration": calibration, "seed": seed,
           "score": score, "order": order, "bins": bins}  # fmt: skip
    try:
        scored = read_scores(predictions)
        settings = TriageSettings.parse(raw) if given else None
        if preview:
            if settings is None:
                raise click.ClickException("--preview needs --lower and --upper")
            found = preview_scores(project, scored, settings, sources=sources)
            db.session.rollback()
            _show(found.counts, as_json, {"project": project.id, "preview": True})
            return
        made = add_scored_round(
            project, scored, settings, project.owner, sources=sources, filename=predictions.name
        )
    except REFUSED as exc:
        db.session.rollback()
        raise _refused(exc) from None
    db.session.commit()
    _show(made.counts, as_json, {"project": project.id, "round": made.number})


@projects.command("reblock")
@click.argument("project_id", type=int)
@click.argument("rules")
@click.option("--json", "as_json", is_flag=True, help="Print JSON.")
def reblock_command(project_id: int, rules: str, as_json: bool) -> None:
    """Block one representative per current cluster with RULES (JSON, as the blocking API);
    the new pairs are the project's next round."""
    project = _project(project_id)
    refuse_if_closed(project_id)
    try:
        made = reblock_round(project, json.loads(rules), project.owner)
    except (json.JSONDecodeError, RecursionError):  # RecursionError: nested past Python's stack
        raise click.ClickException(
            'RULES must be JSON, e.g. \'[["dob"], ["last_name"]]\''
        ) from None
    except BlockingRefused as exc:
        db.session.rollback()
        raise click.ClickException(str(exc)) from None
    db.session.commit()
    _show(made.counts, as_json, {"project": project.id, "round": made.number})


@projects.command("rounds")
@click.argument("project_id", type=int)
def rounds_command(project_id: int) -> None:
    """List PROJECT_ID's rounds: origin, triage thresholds and counts."""
    project = _project(project_id)
    for r in (summary.as_json() for summary in round_summaries(project)):
        triage, counts = r["triage"] or {}, r["counts"]
        band = f" [{triage['lower']}, {triage['upper']}] on {triage['score']}" if triage else ""
        click.echo(f"round {r['round']}: {r['origin']}{band}, {counts.get('pairs', 0):,} pairs, "
                   f"{counts.get('review', 0):,} to review")  # fmt: skip
