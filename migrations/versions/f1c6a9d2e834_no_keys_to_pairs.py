"""no table has a key to pairs, and an assignment's pairs have no keys

Revision ID: f1c6a9d2e834
Revises: b3e8d1f4a962
Create Date: 2026-12-02 18:30:00

- Dropped: the foreign key of ``pair_id`` to ``pairs`` on every table that has one
  (assignments' pairs, cells, reveals, answers, answers' states and counts, conflicts'
  resolutions and referrals, quality checks), and ``assignment_pairs``' key to
  ``assignments``.
- Why: deleting a pair ran each key's cascade for that one row, a look-up in every table
  that holds pairs (22 µs a pair on PostgreSQL with an index on each, a scan of the whole table
  without one); and an assignment's pairs, written in bulk, paid two key checks a row
  (``bench/RESULTS.md``). ``delete_project`` now deletes those rows a table at a time.
- ``uq_assignment_pairs_handle`` holds the handles only (``handle IS NOT NULL``): an
  assignment without checks has none, and its nulls were a quarter of writing its pairs.
- On SQLite the tables are rebuilt: the triggers are set aside and made again from their own
  SQL, as in 7b1e4f9a2c60.
"""
from alembic import op
import sqlalchemy as sa


# revision identifiers, used by Alembic.
revision = 'f1c6a9d2e834'
down_revision = 'b3e8d1f4a962'
branch_labels = None
depends_on = None

#: (table, column, referred table) of every key dropped
KEYS = [
    ('assignment_pairs', 'assignment_id', 'assignments'),
    ('assignment_pairs', 'pair_id', 'pairs'),
    ('cell_states', 'pair_id', 'pairs'),
    ('reveal_events', 'pair_id', 'pairs'),
    ('decision_events', 'pair_id', 'pairs'),
    ('answer_states', 'pair_id', 'pairs'),
    ('pair_answers', 'pair_id', 'pairs'),
    ('conflict_resolutions', 'pair_id', 'pairs'),
    ('conflict_referrals', 'pair_id', 'pairs'),
    ('quality_checks', 'pair_id', 'pairs'),
]


def upgrade(engine_name):
    globals()["upgrade_%s" % engine_name]()


def downgrade(engine_name):
    globals()["downgrade_%s" % engine_name]()


def _triggers_aside():
    """Drop SQLite's triggers (a rebuilt table is renamed into place, which checks every
    trigger's SQL against a schema without it); return their SQL to make them again."""
    if op.get_bind().dialect.name != "sqlite":
        return []
    rows = op.get_bind().exec_driver_sql(
        "SELECT name, sql FROM sqlite_master WHERE type = 'trigger' ORDER BY name"
    ).all()
    for name, _ in rows:
        op.execute(f'DROP TRIGGER "{name}"')
    return [sql for _, sql in rows]


def _tables():
    tables = {}
    for table, column, referred in KEYS:
        tables.setdefault(table, []).append((column, referred))
    return tables


HANDLED = 'handle IS NOT NULL'


def _handle_index(where):
    op.drop_index('uq_assignment_pairs_handle', table_name='assignment_pairs')
    partial = {} if where is None else {
        'sqlite_where': sa.text(where), 'postgresql_where': sa.text(where),
    }
    op.create_index(
        'uq_assignment_pairs_handle', 'assignment_pairs', ['assignment_id', 'handle'],
        unique=True, **partial,
    )


def upgrade_():
    triggers = _triggers_aside()
    for table, keys in _tables().items():
        with op.batch_alter_table(table, schema=None) as batch_op:
            for column, referred in keys:
                batch_op.drop_constraint(
                    batch_op.f(f'fk_{table}_{column}_{referred}'), type_='foreignkey'
                )
    _handle_index(HANDLED)
    for sql in triggers:
        op.execute(sql)


def downgrade_():
    triggers = _triggers_aside()
    _handle_index(None)
    for table, keys in _tables().items():
        with op.batch_alter_table(table, schema=None) as batch_op:
            for column, referred in keys:
                batch_op.create_foreign_key(
                    batch_op.f(f'fk_{table}_{column}_{referred}'), referred, [column], ['id'],
                    ondelete='CASCADE',
                )
    for sql in triggers:
        op.execute(sql)


def upgrade_vault():
    pass


def downgrade_vault():
    pass
