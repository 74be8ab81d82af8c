"""``flask analytics belief FILE.json`` and ``flask analytics audit --project ID``.

Both print a short text report, or with ``--json`` the same JSON as the API
(``POST /api/v1/analytics/belief``, ``GET /api/v1/admin/projects/<id>/audit``). Read-only.
``belief`` and ``links`` read a file alone (:data:`app.cli.PURE`): the project audit's modules
are imported by ``audit``.
"""

from __future__ import annotations

import json
from pathlib import Path

import click

from app.analytics.belief import BeliefRequestError, audit_upload, evaluate
from app.cli.analytics import analytics


@analytics.command("belief")
@click.argument("path", type=click.Path(exists=True, dir_okay=False, path_type=Path))
@click.option("--json", "as_json", is_flag=True, help="Print the full JSON result.")
def belief(path: Path, as_json: bool) -> None:
    """Pignistic, Bel/Pl/q, measures, compatibility and combinations of FILE.json."""
    try:
        body = json.loads(path.read_text(encoding="utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError, RecursionError) as exc:
        raise click.ClickException(f"{path.name} is not JSON: {exc.__class__.__name__}") from None
    try:
        result = evaluate(body)
    except BeliefRequestError as exc:
        raise click.ClickException(str(exc)) from None
    if as_json:
        click.echo(json.dumps(result, indent=2, ensure_ascii=False))
        return
    click.echo(
        "pignistic: " + ", ".join(f"{x}={v['exact']}" for x, v in result["pignistic"].items())
    )
    n, h = result["nonspecificity"], result["pignistic_entropy"]
    click.echo(f"non-specificity: {n['bits']:.6g} bits ({n['nats']:.6g} nats)")
    click.echo(f"pignistic entropy: {h['bits']:.6g} bits ({h['nats']:.6g} nats)")
    if "compatibility" in result:
        c = result["compatibility"]
        click.echo(
            f"compatible with P: {c['compatible']} (max violation {c['max_violation']['exact']})"
        )
    if "m2" in result:
        click.echo(f"conflict K: {result['conflict']['exact']}")
        if "error" in result["dempster"]:
            click.echo("Dempster: total conflict")
        for name, verdict in result.get("acceptability", {}).items():
            click.echo(f"{name}: acceptable={verdict['acceptable']}")


@analytics.command("audit")
@click.option("--project", "project_id", type=int, required=True)
@click.option("--model", type=click.Choice(["row", "pair"]), default=None,
              help="Evidence model (default: the project's).")  # fmt: skip
@click.option("--assignment", "assignment_id", type=int, default=None,
              help="Audit one assignment instead of all pooled.")  # fmt: skip
@click.option("--trail", is_flag=True, help="Also replay every assignment's reveals.")
@click.option("--json", "as_json", is_flag=True, help="Print the full JSON result.")
def audit(project_id: int, model, assignment_id, trail: bool, as_json: bool) -> None:
    """Re-identification audit of a project's disclosure state (per row, per worker)."""
    from app.analytics.belief import AuditError, project_audit, project_trails, trail_json
    from app.cli.custody import refuse_if_closed

    refuse_if_closed(project_id)
    try:
        result = project_audit(project_id, model, assignment_id)
        if trail:
            trails = project_trails(project_id, model)
            result["trails"] = {name: trail_json(steps) for name, steps in trails.items()}
    except AuditError as exc:
        raise click.ClickException(str(exc)) from None
    if as_json:
        click.echo(json.dumps(result, indent=2))
        return
    s = result["summary"]
    click.echo(
        f"project {project_id}, {result['scope']}, model {result['model']}: {s['rows']} rows"
    )
    click.echo(
        f"mean P(true record) {s['mean_true_probability']['exact']} "
        f"({s['mean_true_probability']['float']:.4f}), max {s['max_true_probability']['exact']}, "
        f"unique rows {s['unique_rows']}, below kappa {s['rows_below_kappa']}, "
        f"incompatible {s['incompatible_rows']}, N {s['nonspecificity_bits']:.4f} bits, "
        f"KAPR {s['kapr']['exact']}"
    )
    for one in result.get("assignments", []):
        t = one["summary"]
        click.echo(
            f"  {one['worker']} (#{one['assignment']}): mean P(true) "
            f"{t['mean_true_probability']['exact']}, KAPR {t['kapr']['exact']}"
        )


@analytics.command("links")
@click.argument("path", type=click.Path(exists=True, dir_okay=False, path_type=Path))
@click.option("--json", "as_json", is_flag=True, help="Print the full JSON result.")
def links(path: Path, as_json: bool) -> None:
    """Audit a linkage output with ground truth (CSV, JSON or a trajectory RL result)."""
    try:
        result = audit_upload(path.read_text(encoding="utf-8"), path.name)
    except UnicodeDecodeError:
        raise click.ClickException(f"{path.name} is not UTF-8 text") from None
    except BeliefRequestError as exc:
        raise click.ClickException(str(exc)) from None
    if as_json:
        click.echo(json.dumps(result, indent=2))
        return
    s = result["summary"]
    click.echo(
        f"{s['records']} records: {s['compatible']} compatible, {s['overconfident']} "
        f"over-confident, {s['support_violations']} miss a true record (Proposition 16), "
        f"{s['argmax_outside_true_set']} pick outside the truth; mean P(true) "
        f"{s['mean_true_probability']['exact']}"
    )
    for r in result["records"]:
        if r["overconfident"]:
            click.echo(f"  over-confident: {r['record']} (violation {r['max_violation']['exact']})")
