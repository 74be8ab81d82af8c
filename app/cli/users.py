"""``flask users ...``: create users and tokens, and administer accounts (each change audited).

The command line acts as no user: its audit rows say ``via cli`` with no actor.
"""

from __future__ import annotations

import click
from flask.cli import AppGroup
from sqlalchemy import select

from app.auth.accounts import (
    activate,
    change_role,
    deactivate,
    reset_password,
    revoke_token,
    settle_refusal,
    token_counts,
    tokens_of,
    user_named,
)
from app.auth.services import AccountError, create_user, issue_token
from app.extensions import db
from app.models import User

users = AppGroup("users", help="Create and administer users and their API tokens.")
ROLES = click.Choice(["admin", "manager", "worker"])


def _run(action, *args):
    """Run an account operation and commit, or fail with its reason (nothing changed)."""
    try:
        result = action(*args)
    except AccountError as exc:
        settle_refusal(exc)
        raise click.ClickException(str(exc)) from None
    db.session.commit()
    return result


@users.command("create")
@click.argument("username")
@click.option("--role", type=ROLES, required=True)
@click.option("--password", default=None, help="Generated and printed when omitted.")
def create(username: str, role: str, password: str | None) -> None:
    """Create a user (admins create every account; there is no self-registration)."""
    user, password = _run(create_user, username, role, password)
    click.echo(f"created {user.role} {user.username!r}; password: {password}")


@users.command("list")
def list_users() -> None:
    """List the users: role, status and number of API tokens."""
    counts = token_counts()
    click.echo(f"{'user':20} {'role':8} {'status':12} tokens")
    for user in db.session.scalars(select(User).order_by(User.username)):
        state = "active" if user.active else "deactivated"
        if user.must_change_password:
            state += "*"
        click.echo(f"{user.username:20} {user.role:8} {state:12} {counts.get(user.id, 0)}")
    click.echo("(* must choose a new password at the next login)")


@users.command("deactivate")
@click.argument("username")
def deactivate_command(username: str) -> None:
    """Deactivate USERNAME: their sessions and API tokens stop working at once."""
    _run(lambda: deactivate(user_named(username), by=None, via="cli"))
    click.echo(f"{username} deactivated")


@users.command("activate")
@click.argument("username")
def activate_command(username: str) -> None:
    """Reactivate USERNAME."""
    _run(lambda: activate(user_named(username), by=None, via="cli"))
    click.echo(f"{username} active again")


@users.command("role")
@click.argument("username")
@click.argument("role", type=ROLES)
def role_command(username: str, role: str) -> None:
    """Give USERNAME another ROLE."""
    _run(lambda: change_role(user_named(username), role, by=None, via="cli"))
    click.echo(f"{username} is now {role}")


@users.command("reset-password")
@click.argument("username")
def reset_password_command(username: str) -> None:
    """Print a one-time password for USERNAME; it only lets them choose a new one."""
    password = _run(lambda: reset_password(user_named(username), by=None, via="cli"))
    click.echo(f"one-time password for {username}: {password}")
    click.echo("(shown once; their sessions were logged out; they choose a new one at login)")


@users.command("token")
@click.argument("username")
@click.option("--label", default=None, help="What the token is for (shown in token lists).")
def token(username: str, label: str | None) -> None:
    """Print a new API token for USERNAME. It is shown once and stored only as a hash."""
    click.echo(_run(lambda: issue_token(user_named(username), label, by=None, via="cli")))


@users.command("tokens")
@click.argument("username")
def tokens_command(username: str) -> None:
    """List USERNAME's API tokens (id, label, created, last used; never the token)."""
    user = _run(user_named, username)
    listed = tokens_of(user)
    for t in listed:
        used = t.last_used_at.strftime("%Y-%m-%d %H:%M") if t.last_used_at else "never"
        made = t.created_at.strftime("%Y-%m-%d %H:%M")
        click.echo(f"{t.id:6}  {t.label or '-':24} created {made}  last used {used}")
    if not listed:
        click.echo(f"{username} has no API tokens")


@users.command("revoke-token")
@click.argument("username")
@click.argument("token_id", type=int, required=False)
@click.option("--all", "every", is_flag=True, help="Revoke every token of USERNAME.")
def revoke_token_command(username: str, token_id: int | None, every: bool) -> None:
    """Revoke USERNAME's token TOKEN_ID (see `users tokens`), or --all of them."""
    if (token_id is None) == (not every):
        raise click.UsageError("give a TOKEN_ID or --all (not both)")

    def revoke():
        user = user_named(username)
        ids = [t.id for t in tokens_of(user)] if every else [token_id]
        for one in ids:
            revoke_token(user, one, by=None, via="cli")
        return ids

    ids = _run(revoke)
    click.echo(f"revoked {len(ids)} token(s) of {username}: {', '.join(map(str, ids)) or '-'}")
