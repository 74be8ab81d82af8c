"""``flask --app app ...`` commands; each wraps a service and commits at the boundary.

Nothing is imported here until :func:`register` (the whole app's commands) or
:func:`register_pure` (the commands that need no database, :data:`PURE`): a pure command
builds neither the web application nor the models (``create_app``).
"""

import os
import sys

from flask import Flask

#: ``analytics`` commands that compute on files alone, and the modules adding them.
PURE = {
    "rl": "app.cli.trajectory",
    "compile-kernels": "app.cli.trajectory",
    "belief": "app.cli.belief",
    "links": "app.cli.belief",
    "release-risk": "app.cli.release",
}


def register(app: Flask) -> None:
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

    app.cli.add_command(users)
    app.cli.add_command(projects)
    app.cli.add_command(analytics)
    app.cli.add_command(demo_command)
    app.cli.add_command(generate_data_command)
    app.cli.add_command(scoring)
    app.cli.add_command(jobs)
    app.cli.add_command(advice)


def register_pure(app: Flask, name: str) -> None:
    """Register ``analytics NAME`` (one of :data:`PURE`) alone."""
    from importlib import import_module

    from app.cli.analytics import analytics

    import_module(PURE[name])
    app.cli.add_command(analytics)


_VALUED = ("--app", "-A", "--env-file", "-e")  # the flask command's options that take a value


def pure_command(argv: list[str] | None = None) -> str | None:
    """The :data:`PURE` command this process was started for (``flask [options] analytics
    NAME ...``), or None: any other command, or no command line (gunicorn, tests)."""
    if os.environ.get("FLASK_RUN_FROM_CLI") != "true":  # set by the flask command itself
        return None
    words, args = [], list(sys.argv[1:] if argv is None else argv)
    while args and len(words) < 2:
        arg = args.pop(0)
        if arg in _VALUED:
            args = args[1:]
        elif not arg.startswith("-"):
            words.append(arg)
        elif not words:
            continue  # --debug, --app=app, -Aapp ...
        else:
            break  # an option of the group itself
    return words[1] if len(words) == 2 and words[0] == "analytics" and words[1] in PURE else None
