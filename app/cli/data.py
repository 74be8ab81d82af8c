"""``flask demo`` and ``flask generate-data``."""

from __future__ import annotations

import time
from pathlib import Path

import click
from flask.cli import with_appcontext

from app.extensions import db


@click.command("demo")
@click.option("--if-empty", is_flag=True, help="Do nothing when users exist already.")
@click.option(
    "--reset-passwords",
    is_flag=True,
    help="Lost the logins? Give the demo users new passwords (nothing else changes).",
)
@with_appcontext
def demo_command(if_empty: bool, reset_passwords: bool) -> None:
    """Load demo users and demo projects; print the demo logins."""
    from app.demo import load_demo, reset_demo_logins

    logins = reset_demo_logins() if reset_passwords else load_demo(if_empty=if_empty)
    db.session.commit()
    if not logins:
        click.echo("demo data present already; nothing loaded")
        return
    click.echo("Demo logins (shown once; passwords are stored only as scrypt hashes):")
    for username, role, password in logins:
        click.echo(f"  {role:8} {username:10} {password}")


@click.command("generate-data")
@click.option("--records", type=click.IntRange(min=1), required=True)
@click.option("--seed", type=int, default=0, show_default=True)
@click.option("--out", type=click.Path(dir_okay=False, path_type=Path), required=True)
def generate_data_command(records: int, seed: int, out: Path) -> None:
    """Write N synthetic person records with realistic discrepancies and true cluster ids."""
    from app.datagen import write_csv

    started = time.perf_counter()
    written = write_csv(out, records, seed)
    click.echo(f"wrote {written} records to {out} in {time.perf_counter() - started:.1f} s")
