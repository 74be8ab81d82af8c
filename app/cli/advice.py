"""``flask --app app advice fit|simulate``: the reviewer models of the CHI 2018 study."""

from __future__ import annotations

import json
from fractions import Fraction
from pathlib import Path

import click
from flask.cli import AppGroup

from app.core.advice import POLICIES, REVIEWERS, read_samples, simulate_study, stored

advice = AppGroup("advice", help="Reviewer models fitted to the CHI 2018 study; the advisor.")


@advice.command("fit")
@click.option(
    "--data",
    type=click.Path(exists=True, file_okay=False, path_type=Path),
    default=stored.DATA,
    show_default=True,
    help="Folder with samples/ and answers_given.csv.",
)
@click.option("--check", is_flag=True, help="Exit 1 when the stored file is not up to date.")
def fit_command(data: Path, check: bool) -> None:
    """Fit the human model and the world model; write app/core/advice/human_model.json."""
    fitted = stored.fit_stored(data)
    if check:
        current = json.loads(stored.STORED.read_text(encoding="utf-8"))
        if not stored.agrees(current, json.loads(json.dumps(fitted))):
            raise click.ClickException(f"{stored.STORED.name} is not up to date: run advice fit")
        click.echo(f"{stored.STORED.name} is up to date")
        return
    stored.write(fitted)
    validation = fitted["validation"]
    click.echo(
        f"wrote {stored.STORED} (penalty {fitted['penalty']}; leave-types-out correlation "
        f"human {validation['human']['correlation']:.3f}, evidence "
        f"{validation['evidence']['correlation']:.3f})"
    )


@advice.command("simulate")
@click.option(
    "--chi2018",
    "directory",
    required=True,
    type=click.Path(exists=True, file_okay=False, path_type=Path),
    help="Folder holding the ten sample_NN.csv files.",
)
@click.option("--reviewer", type=click.Choice(REVIEWERS), default="human", show_default=True)
@click.option("--policy", type=click.Choice(POLICIES), default="advisor", show_default=True)
@click.option("--pair-budget", default=None, help="KAPR per pair (cheapest, random, advisor).")
@click.option("--json", "as_json", is_flag=True, help="Print the list as JSON.")
def simulate_command(directory, reviewer, policy, pair_budget, as_json) -> None:
    """Run a disclosure policy over the study's pairs: one object per presented pair."""
    try:
        pairs = read_samples(directory)
        budget = None if pair_budget is None else Fraction(pair_budget)
    except (ValueError, ZeroDivisionError) as exc:
        raise click.ClickException(str(exc)) from None
    if policy in ("cheapest", "random") and budget is None:
        raise click.ClickException(f"--policy {policy} needs --pair-budget (it stops at it)")
    rows = simulate_study(pairs, reviewer, policy, stored.load(), budget=budget)
    if as_json:
        click.echo(json.dumps(rows))
        return
    accuracy = sum(r["p_correct"] for r in rows) / len(rows)
    shown = sum(r["chars_shown"] for r in rows) / sum(r["chars_total"] for r in rows)
    kapr = sum(r["kapr"] for r in rows) / len(rows)
    click.echo(
        f"{len(rows)} pairs, {reviewer} reviewer, {policy}: P(correct) {100 * accuracy:.1f} %, "
        f"characters {100 * shown:.1f} %, KAPR per pair {100 * kapr:.3f} %"
    )
