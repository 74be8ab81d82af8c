"""The committed migrations build exactly the schema the models describe."""

import sqlalchemy as sa
from alembic.autogenerate import compare_metadata
from alembic.migration import MigrationContext
from flask_migrate import downgrade, upgrade

from app import create_app
from app.extensions import db


def _own_tables(metadata):
    """Compare only this bind's tables: on PostgreSQL both binds may share one database."""
    own = set(metadata.tables)
    return lambda name, kind, _parents: kind != "table" or name in own


def test_upgrade_from_empty_matches_the_models(database_config):
    app = create_app({"TESTING": True, "SECRET_KEY": "t", "AUTO_UPGRADE": False, **database_config})
    with app.app_context():
        upgrade()
        for bind in (None, "vault"):
            engine = db.engines[bind]
            with engine.connect() as conn:
                context = MigrationContext.configure(
                    conn, opts={"include_name": _own_tables(db.metadatas[bind])}
                )
                diff = compare_metadata(context, db.metadatas[bind])
            # Each bind's own version table is Alembic's bookkeeping, not a model.
            diff = [
                d
                for d in diff
                if not (d[0] == "remove_table" and d[1].name.startswith("alembic_version"))
            ]
            assert diff == [], (bind, diff)
        downgrade(revision="base")
        assert "users" not in sa.inspect(db.engines[None]).get_table_names()
        db.session.remove()
        for engine in db.engines.values():
            engine.dispose()
