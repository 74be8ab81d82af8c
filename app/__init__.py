"""The application factory."""

from __future__ import annotations

import logging
import os
import secrets
import sys
from pathlib import Path

from flask import Flask

log = logging.getLogger(__name__)

MIGRATIONS_DIR = Path(__file__).resolve().parent.parent / "migrations"
TEMPLATES_DIR = Path(__file__).resolve().parent.parent / "templates"
STATIC_DIR = Path(__file__).resolve().parent.parent / "static"


def create_app(test_config: dict | None = None) -> Flask:
    """Create and configure the application.

    Configuration is layered: built-in defaults, then ``config.py``, then
    ``instance/config.py``, then ``FLASK_``-prefixed environment variables; ``test_config``
    (tests only) replaces the last three.

    Started by ``flask analytics rl|belief|links|release-risk|compile-kernels`` (computations
    on files, no database), the app is only its configuration and that command: no model,
    extension or blueprint is imported (:func:`app.cli.pure_command`).
    """
    from app.cli import pure_command, register_pure

    pure = pure_command() if test_config is None else None
    app = Flask(
        __name__,
        instance_relative_config=True,
        template_folder=str(TEMPLATES_DIR),
        static_folder=str(STATIC_DIR),
    )
    Path(app.instance_path).mkdir(parents=True, exist_ok=True)
    _configure(app, test_config)
    if pure is not None:
        register_pure(app, pure)
        return app
    from app.auth.sessions import CookieSessions
    from app.extensions import csrf, db, login_manager, migrate

    app.session_interface = CookieSessions()

    db.init_app(app)
    migrate.init_app(app, db, directory=str(MIGRATIONS_DIR))
    login_manager.init_app(app)
    csrf.init_app(app)

    from app import models  # noqa: F401  (register every table with the metadata)
    from app.database import install_engine_hooks

    with app.app_context():
        install_engine_hooks()

    from app.api.inputs import register_input_limits

    register_input_limits(app)
    _register_blueprints(app)
    from app.charts import register as register_charts
    from app.errors import register_database_errors, register_error_handlers
    from app.headers import register_security_headers

    register_error_handlers(app)
    register_database_errors(app)
    register_charts(app)
    from app.units import register as register_units

    register_units(app)
    register_security_headers(app)
    _register_cli(app)

    if app.config["AUTO_UPGRADE"]:
        from app.database import upgrade_embedded_database

        upgrade_embedded_database(app)
    from app.projects.importing.recovery import reconcile_at_start as reconcile_imports

    reconcile_imports(app)  # half imports left by a dead process are removed, jobs failed
    if app.config.get("JOBS_RECONCILE_ON_START", not app.testing):
        from app.jobs.recovery import reconcile_at_start as reconcile_jobs
        from app.jobs.recovery import start_housekeeping

        reconcile_jobs(app)  # jobs left running by a dead process fail with a reason
        if app.config.get("JOBS_HOUSEKEEPING_SECONDS", 0 if app.testing else 300):
            start_housekeeping(app)  # and again on a timer, their working folders swept too
    return app


def _configure(app: Flask, test_config: dict | None) -> None:
    instance = Path(app.instance_path)
    app.config.from_mapping(
        SQLALCHEMY_DATABASE_URI=f"sqlite:///{instance / 'mindfirl.sqlite'}",
        VAULT_DATABASE_URI=None,
        SESSION_COOKIE_HTTPONLY=True,
        SESSION_COOKIE_SAMESITE="Lax",
        REMEMBER_COOKIE_HTTPONLY=True,
        REMEMBER_COOKIE_SAMESITE="Lax",
        WTF_CSRF_TIME_LIMIT=None,
        # CSRF is checked in auth.check_csrf, which exempts bearer-token requests only.
        WTF_CSRF_CHECK_DEFAULT=False,
        AUTO_UPGRADE=None,
    )
    if test_config is None:
        app.config.from_object("config")
        app.config.from_pyfile("config.py", silent=True)
        app.config.from_prefixed_env()
        if url := os.environ.get("DATABASE_URL"):
            app.config["SQLALCHEMY_DATABASE_URI"] = _psycopg_url(url)
        if url := os.environ.get("VAULT_DATABASE_URL"):
            app.config["VAULT_DATABASE_URI"] = _psycopg_url(url)
    else:
        app.config.from_object("config")
        app.config.update(test_config)

    main_url = app.config["SQLALCHEMY_DATABASE_URI"]
    if app.config["VAULT_DATABASE_URI"] is None:
        # The vault is its own bind; on SQLite its own file, elsewhere the same server.
        if main_url.startswith("sqlite:///") and not main_url.endswith(":memory:"):
            main_path = Path(main_url.removeprefix("sqlite:///"))
            app.config["VAULT_DATABASE_URI"] = f"sqlite:///{main_path.with_name('vault.sqlite')}"
        else:
            app.config["VAULT_DATABASE_URI"] = main_url
    # No statement parameter (a record's values) in any log line or exception text.
    app.config["SQLALCHEMY_ENGINE_OPTIONS"] = {
        **app.config.get("SQLALCHEMY_ENGINE_OPTIONS", {}),
        "hide_parameters": True,
    }
    if not main_url.startswith("sqlite"):
        # SQLAlchemy's pool keeps 5: under gunicorn's 8 threads the rest were opened and closed
        # on busy requests (bench/load.py burst phase: 104-109 -> 141-177 reveals/s with 10).
        app.config["SQLALCHEMY_ENGINE_OPTIONS"].setdefault(
            "pool_size", int(app.config.get("DATABASE_POOL_SIZE", 10))
        )
    # The vault engine gets the same engine options as the main one (pool, search_path).
    app.config["SQLALCHEMY_BINDS"] = {
        "vault": {
            "url": app.config["VAULT_DATABASE_URI"],
            **app.config.get("SQLALCHEMY_ENGINE_OPTIONS", {}),
        }
    }
    if app.config["AUTO_UPGRADE"] is None:
        # `flask db ...` manages migrations itself; everything else starts on the newest schema.
        managing = len(sys.argv) > 1 and "db" in sys.argv[1:4]
        app.config["AUTO_UPGRADE"] = main_url.startswith("sqlite") and not managing
    # Cookies are marked secure unless the app is served over plain HTTP on purpose.
    app.config.setdefault("SESSION_COOKIE_SECURE", False)
    if not app.config.get("SECRET_KEY") and os.environ.get("SECRET_KEY"):
        app.config["SECRET_KEY"] = os.environ["SECRET_KEY"]
    if not app.config.get("SECRET_KEY"):
        app.config["SECRET_KEY"] = _instance_secret(instance)


def _psycopg_url(url: str) -> str:
    """Use psycopg 3 for a plain ``postgresql://`` URL."""
    for prefix in ("postgres://", "postgresql://"):
        if url.startswith(prefix):
            return "postgresql+psycopg://" + url.removeprefix(prefix)
    return url


def _instance_secret(instance: Path) -> str:
    """Read the secret key from ``instance/secret_key``, generating it on first start."""
    path = instance / "secret_key"
    if not path.exists():
        path.write_text(secrets.token_hex(32))
        path.chmod(0o600)
    return path.read_text().strip()


def _register_blueprints(app: Flask) -> None:
    from app.analytics.views import bp as analytics_bp
    from app.api import bp as api_bp
    from app.auth import bp as auth_bp
    from app.docs import bp as docs_bp
    from app.projects.custody import views as _custody  # noqa: F401 (its pages join projects_bp)
    from app.projects.views import bp as projects_bp
    from app.review.views import bp as review_bp

    app.register_blueprint(auth_bp)
    app.register_blueprint(projects_bp, url_prefix="/projects")
    app.register_blueprint(review_bp, url_prefix="/review")
    app.register_blueprint(analytics_bp, url_prefix="/admin")
    app.register_blueprint(api_bp, url_prefix="/api/v1")
    app.register_blueprint(docs_bp)


def _register_cli(app: Flask) -> None:
    from app.cli import register

    register(app)
