"""``flask analytics release-risk FILE.csv --qi COL[,COL...]``: the release-risk check of a CSV.

Prints a short report, or with ``--json`` the JSON object of
``GET /api/v1/projects/<id>/release-risk`` (``docs/release-risk.md``). Read-only.
"""

from __future__ import annotations

import json
from pathlib import Path

import click

from app.cli.analytics import analytics
from app.projects.release import ReleaseRequest, ReleaseRequestError, release_risk_of_csv

#: How the report names where the population class sizes came from.
_CLASSES = {
    "sample": "the sample as its own population, as ARX",
    "population_table": "classes counted in the population file, as ARX",
    "scaled_estimate": "scaled estimate F = f N / n, not ARX's",
}


@analytics.command("release-risk")
@click.argument("path", type=click.Path(exists=True, dir_okay=False, path_type=Path))
@click.option("--qi", required=True, help="Quasi-identifier columns, comma-separated.")
@click.option("--sensitive", default=None, help="Sensitive columns, comma-separated.")
@click.option("--population", default=None, help="Population size N (population uniqueness).")
@click.option(
    "--estimate",
    type=click.Choice(["sample", "scaled"]),
    default=None,
    help="Journalist and marketer risk: sample (ARX: the sample is its own population, the "
    "default) or scaled (F = f N / n, needs --population; not ARX's).",
)
@click.option(
    "--population-file",
    type=click.Path(exists=True, dir_okay=False, path_type=Path),
    default=None,
    help="A CSV of the population (a superset with the QI columns): ARX's exact journalist risk.",
)
@click.option("--threshold", default=None, help="Risk threshold t in (0, 1]; default 0.2.")
@click.option(
    "--suppressed",
    type=click.Choice(["exclude", "wildcard"]),
    default="exclude",
    show_default=True,
    help="exclude: ARX leaves such records out; wildcard: sdcMicro matches any value.",
)
@click.option("--missing", default="*", show_default=True, help="Token of a suppressed value.")
@click.option("--json", "as_json", is_flag=True, help="Print the full JSON result.")
def release_risk(
    path: Path, population_file: Path | None, as_json: bool, **options: str | None
) -> None:
    """k-anonymity, ARX's attacker and uniqueness models, l-diversity of FILE.csv."""
    texts = []
    for one in (path, population_file):
        try:
            texts.append(None if one is None else one.read_text(encoding="utf-8-sig"))
        except UnicodeDecodeError:
            raise click.ClickException(f"{one.name} is not UTF-8 text") from None
    try:
        args = {name: value for name, value in options.items() if value is not None}
        result = release_risk_of_csv(texts[0], ReleaseRequest.of(args), texts[1]).as_dict()
    except ReleaseRequestError as exc:
        raise click.ClickException(str(exc)) from None
    if as_json:
        click.echo(json.dumps(result, indent=2, ensure_ascii=False))
        return
    p, j = result["prosecutor"], result["journalist"]
    classes = _CLASSES[result["population_classes"]]
    click.echo(
        f"{result['records']} records, {result['records_in_classes']} in classes "
        f"({result['suppressed']}); k = {result['k']}, sample uniques {result['sample_uniques']}, "
        f"{result['records_below_k']} records in classes below {result['k_target']}"
    )
    for name, risk in (("prosecutor", p), (f"journalist ({classes})", j)):
        click.echo(
            f"{name}: at risk {risk['records_at_risk']:.4g}, highest {risk['highest']:.4g}, "
            f"lowest {risk['lowest']:.4g}, average {risk['average']:.4g}"
        )
    click.echo(f"marketer ({classes}): {result['marketer']:.4g}")
    pu = result["population_uniqueness"]
    if result["population_size"] is not None:
        shown = ", ".join(
            f"{m} {'n/a' if pu[m] is None else format(pu[m], '.4g')}"
            for m in ("zayatz", "pitman", "snb", "dankar")
        )
        click.echo(f"population uniqueness: {shown}")
    for name, d in result["attributes"].items():
        c = (
            "no c: a class has one value"
            if d["recursive_c"] is None
            else f"c > {d['recursive_c']:.4g}"
        )
        click.echo(
            f"{name}: l-distinct {d['l_distinct']}, l-entropy {d['l_entropy']:.4g}, "
            f"recursive (c,2) {c}, t-closeness {d['t_closeness']:.4g}"
        )
