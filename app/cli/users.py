"""``flask users create NAME --role ROLE`` and ``flask users token NAME``."""

from __future__ import annotations

import click
from flask.cli import AppGroup
from sqlalchemy import select

from app.auth.services import AccountError, create_user, issue_token
from app.extensions import db
from app.models import User

users = AppGroup("users", help="Create users and API tokens.")


@users.command("create")
@click.argument("username")
@click.option("--role", type=click.Choice(["admin", "manager", "worker"]), required=True)
@click.option("--password", default=None, help="Generated and printed when omitted.")
def create(username: str, role: str, password: str | None) -> None:
    """Create a user (admins create every account; there is no self-registration)."""
    try:
        user, password = create_user(username, role, password)
    except AccountError as exc:
        raise click.ClickException(str(exc)) from None
    db.session.commit()
    click.echo(f"created {user.role} {user.username!r}; password: {password}")


@users.command("token")
@click.argument("username")
def token(username: str) -> None:
    """Print a new API token for USERNAME. It is shown once and stored only as a hash."""
    user = db.session.scalar(select(User).where(User.username == username))
    if user is None:
        raise click.ClickException(f"no user {username!r}")
    plain = issue_token(user)
    db.session.commit()
    click.echo(plain)
