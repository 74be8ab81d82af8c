"""``flask jobs worker``: run the jobs queued in the database (``JOBS_EXECUTOR=queue``)."""

from __future__ import annotations

import click
from flask import current_app
from flask.cli import AppGroup

jobs = AppGroup("jobs", help="Long jobs: workers of the database queue.")


@jobs.command("worker")
@click.option("--until-empty", is_flag=True, help="Exit once no job is queued.")
@click.option("--max-jobs", type=click.IntRange(min=1), help="Exit after this many jobs.")
def worker_command(until_empty: bool, max_jobs: int | None) -> None:
    """Claim and run queued jobs, one at a time, until SIGTERM or Ctrl-C (after the running one).

    Start as many as you like, on any machine that reaches the database; see docs/jobs.md.
    """
    from app.jobs.worker import Worker

    app = current_app._get_current_object()
    ran = Worker(app, until_empty=until_empty, max_jobs=max_jobs).run()
    click.echo(f"{ran} job(s) run", err=True)
