"""The committed migrations build exactly the schema the models describe."""

import pytest
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


def _manager_and_project(now: str, name: str, kind: str) -> list[str]:
    """The rows every old-revision fixture starts with: manager 1 and its project 1."""
    return [
        "INSERT INTO users (id, username, role, password_hash, active, failed_logins,"
        f" created_at) VALUES (1, 'max', 'manager', 'x', TRUE, 0, '{now}')",
        "INSERT INTO projects (id, name, kind, owner_id, kappa, default_budget,"
        " evidence_model, page_size, allow_unsure, records_version, created_at)"
        f" VALUES (1, '{name}', '{kind}', 1, 1, 0.5, 'row', 10, FALSE, 1, '{now}')",
    ]


def _at_revision(revision: str, rows: list[str]) -> None:
    """Upgrade an empty database to ``revision`` and write ``rows`` there (raw SQL)."""
    upgrade(revision=revision)
    conn = db.session.connection()
    for statement in rows:
        conn.execute(sa.text(statement))
    db.session.commit()


def _let_go() -> None:
    """End the session and close every engine the test's app opened."""
    db.session.remove()
    for engine in db.engines.values():
        engine.dispose()


def _app_on(database_config: dict):
    return create_app(
        {"TESTING": True, "SECRET_KEY": "t", "AUTO_UPGRADE": False, **database_config}
    )


def test_upgrade_from_empty_matches_the_models(empty_database_config):
    app = _app_on(empty_database_config)
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
        if db.engine.dialect.name == "postgresql":  # what create_all sets (models.base)
            storage = "SELECT attstorage FROM pg_attribute WHERE attrelid = "
            storage += "'source_indexes'::regclass AND attname = 'data'"
            assert db.session.scalar(sa.text(storage)) == "e"
            db.session.rollback()
        downgrade(revision="base")
        assert "users" not in sa.inspect(db.engines[None]).get_table_names()
        _let_go()


def test_upgrade_keeps_a_landed_databases_pair_file_project(empty_database_config):
    """A database at the first revision, with a pair file that repeated a record pair.

    The first schema paired a repeat through a copy of record A (``1@P2``) and kept the
    PairIDs in ``pair_file_keys``; after the upgrade both pairs point at record A itself,
    carry their PairIDs, and the copy is gone from the records and the source's count.
    """
    app = _app_on(empty_database_config)
    now = "2026-11-22 08:00:00+00:00"
    with app.app_context():
        rows = [
            *_manager_and_project(now, "demo", "pairfile"),
            "INSERT INTO sources (id, project_id, label, record_count) VALUES (1, 1, 'A', 2)",
            "INSERT INTO sources (id, project_id, label, record_count) VALUES (2, 1, 'B', 1)",
            "INSERT INTO records (id, project_id, source_id, external_id, pseudonym, position,"
            " \"values\") VALUES (1, 1, 1, '1', 'p1', 0, '{}'), (2, 1, 1, '1@P2', 'p2', 1, '{}'),"
            " (3, 1, 2, '2', 'p3', 0, '{}')",
            "INSERT INTO pairs (id, project_id, record_a_id, record_b_id, block, rule)"
            " VALUES (1, 1, 1, 3, '1', 'pair file'), (2, 1, 2, 3, '2', 'pair file')",
            "INSERT INTO pair_file_keys (pair_id, external_id, id_a, id_b)"
            " VALUES (1, 'P1', '1', '2'), (2, 'P2', '1', '2')",
        ]
        _at_revision("0c313306c228", rows)

        upgrade()
        conn = db.session.connection()
        pairs = conn.execute(
            sa.text("SELECT id, record_a_id, record_b_id, external_id FROM pairs ORDER BY id")
        ).all()
        assert [tuple(p) for p in pairs] == [(1, 1, 3, "P1"), (2, 1, 3, "P2")]
        records = conn.execute(sa.text("SELECT external_id FROM records ORDER BY id")).all()
        assert [r[0] for r in records] == ["1", "2"]
        counts = conn.execute(sa.text("SELECT label, record_count FROM sources ORDER BY id"))
        assert [tuple(c) for c in counts] == [("A", 1), ("B", 1)]
        project = conn.execute(
            sa.text("SELECT conflict_policy, resolver_budget, records_version FROM projects")
        ).one()
        assert tuple(project) == ("manager", 0.05, 2)
        db.session.commit()

        # The older schema cannot hold a repeated pair: the downgrade refuses, changing nothing
        # (Flask-Migrate logs the reason and exits).
        with pytest.raises(SystemExit):
            downgrade(revision="0c313306c228")
        db.session.rollback()
        again = db.session.connection().execute(sa.text("SELECT external_id FROM pairs"))
        assert sorted(r[0] for r in again) == ["P1", "P2"]
        db.session.commit()
        _let_go()


def test_upgrade_counts_the_characters_of_stored_records(empty_database_config):
    """Records stored before ``records.characters`` get their count from their values: per
    identifying attribute the value's length, a category 1, missing (or absent) 0."""
    app = _app_on(empty_database_config)
    now = "2026-11-27 08:00:00+00:00"
    with app.app_context():
        rows = [
            *_manager_and_project(now, "p", "dedupe"),
            "INSERT INTO project_attributes (project_id, position, name, kind, identifying)"
            " VALUES (1, 0, 'first', 'string', TRUE), (1, 1, 'sex', 'category', TRUE),"
            " (1, 2, 'dob', 'date', TRUE), (1, 3, 'income', 'string', FALSE)",
            "INSERT INTO sources (id, project_id, label, record_count) VALUES (1, 1, 'A', 3)",
            "INSERT INTO records (id, project_id, source_id, external_id, pseudonym, position,"
            ' "values") VALUES'
            ' (1, 1, 1, \'1\', \'p1\', 0, \'{"first": "jos\\u00e9", "sex": "f",'
            ' "dob": "01021980"}\'),'
            ' (2, 1, 1, \'2\', \'p2\', 1, \'{"first": null, "sex": null, "dob": "01021981"}\'),'
            " (3, 1, 1, '3', 'p3', 2, '{}')",
        ]
        _at_revision("e5c1a7d3b902", rows)
        upgrade()
        conn = db.session.connection()
        counted = conn.execute(sa.text("SELECT id, characters FROM records ORDER BY id")).all()
        assert [tuple(r) for r in counted] == [(1, 4 + 1 + 8), (2, 8), (3, 0)]
        db.session.commit()
        _let_go()


def test_upgrade_drops_the_keys_to_pairs_and_keeps_the_rows_and_triggers(empty_database_config):
    """f1c6a9d2e834 on a database with an assignment and an answer: the rows stay, no table
    keeps a key to ``pairs`` (nor ``assignment_pairs`` to ``assignments``), the handles'
    index is partial, and the answer triggers (set aside while SQLite rebuilt the tables)
    still keep the answers' state and counts."""
    app = _app_on(empty_database_config)
    now = "2026-12-02 08:00:00+00:00"
    with app.app_context():
        rows = [
            *_manager_and_project(now, "p", "dedupe"),
            "INSERT INTO sources (id, project_id, label, record_count) VALUES (1, 1, 'A', 2)",
            "INSERT INTO records (id, project_id, source_id, external_id, pseudonym, position,"
            " \"values\", characters) VALUES (1, 1, 1, '1', 'p1', 0, '{}', 0),"
            " (2, 1, 1, '2', 'p2', 1, '{}', 0)",
            "INSERT INTO pairs (id, project_id, record_a_id, record_b_id) VALUES (1, 1, 1, 2)",
            "INSERT INTO assignments (id, project_id, worker_id, budget, kapr_exact, kapr,"
            " version, chars_disclosed, chars_total, start_partial, resolver, round,"
            f" created_at) VALUES (1, 1, 1, 1.0, '0', 0, 1, 0, 0, '[]', FALSE, 1, '{now}')",
            "INSERT INTO assignment_pairs (assignment_id, pair_id, position) VALUES (1, 1, 0)",
            "INSERT INTO decision_events (assignment_id, pair_id, user_id, at, decision)"
            f" VALUES (1, 1, 1, '{now}', 'same')",
        ]
        _at_revision("b3e8d1f4a962", rows)

        upgrade()
        inspector = sa.inspect(db.engines[None])
        keys = {
            (table, key["referred_table"])
            for table in inspector.get_table_names()
            for key in inspector.get_foreign_keys(table)
        }
        assert not {k for k in keys if k[1] == "pairs" or k[0] == "assignment_pairs"}, keys
        assert ("cell_states", "assignments") in keys  # the others go with their assignment
        handles = {i["name"]: i for i in inspector.get_indexes("assignment_pairs")}
        where = handles["uq_assignment_pairs_handle"]["dialect_options"]
        assert "handle IS NOT NULL" in str(where.get(f"{db.engine.dialect.name}_where"))
        conn = db.session.connection()
        assert conn.execute(sa.text("SELECT * FROM assignment_pairs")).all() == [(1, 1, 0, None)]
        conn.execute(
            sa.text(
                "INSERT INTO decision_events (assignment_id, pair_id, user_id, at, decision)"
                f" VALUES (1, 1, 1, '{now}', 'different')"
            )
        )
        state = conn.execute(sa.text("SELECT decision FROM answer_states")).all()
        counts = conn.execute(sa.text("SELECT due, answers, different FROM pair_answers")).all()
        assert ([tuple(s) for s in state], [tuple(c) for c in counts]) == (
            [("different",)],
            [(1, 1, 1)],
        )
        db.session.commit()
        _let_go()
