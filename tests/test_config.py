from pathlib import Path

from app import create_app


def test_secret_key_is_generated_into_instance_once(tmp_path, monkeypatch):
    monkeypatch.delenv("SECRET_KEY", raising=False)
    monkeypatch.delenv("FLASK_SECRET_KEY", raising=False)
    config = {
        "TESTING": True,
        "AUTO_UPGRADE": False,
        "SQLALCHEMY_DATABASE_URI": f"sqlite:///{tmp_path / 'x.sqlite'}",
    }
    monkeypatch.setattr(
        "flask.Flask.auto_find_instance_path", lambda self: str(tmp_path / "instance")
    )
    first = create_app(dict(config)).config["SECRET_KEY"]
    second = create_app(dict(config)).config["SECRET_KEY"]
    assert first == second and len(first) == 64
    assert (tmp_path / "instance" / "secret_key").stat().st_mode & 0o077 == 0


def test_layers_environment_over_config_file(tmp_path, monkeypatch):
    instance = tmp_path / "instance"
    instance.mkdir()
    (instance / "config.py").write_text("PAGE_SIZE = 25\nLOGIN_MAX_FAILURES = 9\n")
    monkeypatch.setattr("flask.Flask.auto_find_instance_path", lambda self: str(instance))
    monkeypatch.setenv("FLASK_LOGIN_MAX_FAILURES", "7")
    monkeypatch.setenv("FLASK_AUTO_UPGRADE", "false")
    monkeypatch.setenv("DATABASE_URL", "postgresql://u@127.0.0.1:1/db")
    app = create_app()
    assert app.config["PAGE_SIZE"] == 25  # instance/config.py over config.py
    assert app.config["LOGIN_MAX_FAILURES"] == 7  # FLASK_ env over instance/config.py
    assert app.config["SQLALCHEMY_DATABASE_URI"] == "postgresql+psycopg://u@127.0.0.1:1/db"
    assert app.config["SQLALCHEMY_BINDS"]["vault"]["url"] == app.config["SQLALCHEMY_DATABASE_URI"]


def test_postgresql_pool_holds_a_threaded_workers_connections(tmp_path, monkeypatch):
    monkeypatch.setattr("flask.Flask.auto_find_instance_path", lambda self: str(tmp_path))
    monkeypatch.setenv("FLASK_AUTO_UPGRADE", "false")
    monkeypatch.setenv("DATABASE_URL", "postgresql://u@127.0.0.1:1/db")
    app = create_app()
    with app.app_context():
        from app.extensions import db

        assert db.engine.pool.size() == 10  # config.py: gunicorn's 8 threads fit
        assert db.engines["vault"].pool.size() == 10
    monkeypatch.setenv("FLASK_DATABASE_POOL_SIZE", "3")
    with create_app().app_context():
        assert db.engine.pool.size() == 3


def test_sqlite_default_puts_the_vault_in_its_own_file(tmp_path, monkeypatch):
    monkeypatch.setattr("flask.Flask.auto_find_instance_path", lambda self: str(tmp_path))
    monkeypatch.delenv("DATABASE_URL", raising=False)
    monkeypatch.setenv("FLASK_AUTO_UPGRADE", "false")
    app = create_app()
    assert app.config["SQLALCHEMY_DATABASE_URI"].endswith("mindfirl.sqlite")
    assert app.config["SQLALCHEMY_BINDS"]["vault"]["url"].endswith("vault.sqlite")


def test_vault_database_url_keeps_the_vault_apart_and_the_readme_says_so(tmp_path, monkeypatch):
    monkeypatch.setattr("flask.Flask.auto_find_instance_path", lambda self: str(tmp_path))
    monkeypatch.setenv("FLASK_AUTO_UPGRADE", "false")
    monkeypatch.setenv("DATABASE_URL", "postgresql://u@127.0.0.1:1/db")
    monkeypatch.setenv("VAULT_DATABASE_URL", "postgres://v@127.0.0.1:1/vault")
    app = create_app()
    assert (
        app.config["SQLALCHEMY_BINDS"]["vault"]["url"] == "postgresql+psycopg://v@127.0.0.1:1/vault"
    )
    readme = (Path(__file__).resolve().parents[1] / "README.md").read_text(encoding="utf-8")
    assert "VAULT_DATABASE_URL=postgresql://" in readme
    assert "with `DATABASE_URL` alone, **the same database**" in readme


def test_passwords_are_hashed_at_full_strength_outside_the_tests(tmp_path, monkeypatch):
    # the suite lowers scrypt's N (tests/conftest.py); nothing else may
    monkeypatch.setattr("flask.Flask.auto_find_instance_path", lambda self: str(tmp_path))
    monkeypatch.setenv("FLASK_AUTO_UPGRADE", "false")
    app = create_app({"SQLALCHEMY_DATABASE_URI": f"sqlite:///{tmp_path / 'x.sqlite'}"})
    assert app.config["PASSWORD_HASH_METHOD"] == "scrypt:32768:8:1"
    with app.app_context():
        from app.models import User

        user = User(username="ann", role="worker")
        user.set_password("correct horse battery")
        assert user.password_hash.startswith("scrypt:32768:8:1$")
        assert user.check_password("correct horse battery")
