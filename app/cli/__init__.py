"""``flask --app app ...`` commands; each wraps a service and commits at the boundary."""

from flask import Flask

from app.cli import belief  # noqa: F401 (adds its commands to the analytics group)
from app.cli import custody as _custody  # noqa: F401  (adds `projects close|close-due|...`)
from app.cli import release as _release  # noqa: F401  (adds `analytics release-risk`)
from app.cli import trajectory as _trajectory  # noqa: F401  (adds `analytics rl`)
from app.cli import triage as _triage  # noqa: F401  (adds `projects triage|reblock|rounds`)
from app.cli.advice import advice
from app.cli.analytics import analytics
from app.cli.data import demo_command, generate_data_command
from app.cli.jobs import jobs
from app.cli.projects import projects
from app.cli.scoring import scoring
from app.cli.users import users


def register(app: Flask) -> None:
    app.cli.add_command(users)
    app.cli.add_command(projects)
    app.cli.add_command(analytics)
    app.cli.add_command(demo_command)
    app.cli.add_command(generate_data_command)
    app.cli.add_command(scoring)
    app.cli.add_command(jobs)
    app.cli.add_command(advice)
