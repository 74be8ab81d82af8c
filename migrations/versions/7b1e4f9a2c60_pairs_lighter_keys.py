"""pairs: no foreign keys, a unique index of the reviewed pairs only, checks without IN

Revision ID: 7b1e4f9a2c60
Revises: 3f6a2d8c1b47
Create Date: 2026-11-27 22:45:00

- pairs: the foreign keys of ``project_id``, ``record_a_id`` and ``record_b_id`` are dropped
  (every path that writes pairs takes the project from the database and resolves the ids
  among its own records; ``delete_project`` deletes a project's pairs).
- pairs: the unique constraint (project, records, external id) becomes the unique index
  ``uq_pairs_reviewed`` of the pairs whose purpose is not ``model`` (the import keeps the
  model's pairs unique itself).
- pairs: the checks of ``purpose`` and ``model_decision`` say ``=`` … ``OR`` instead of
  ``IN (…)``, which SQLite builds anew for every row it checks.

Together they were most of the time of a 10M-pair import (``bench/RESULTS.md``).
On SQLite the table is rebuilt: the triggers of other tables that read ``pairs`` are set
aside and made again from their own SQL.
"""
from alembic import op
import sqlalchemy as sa


# revision identifiers, used by Alembic.
revision = '7b1e4f9a2c60'
down_revision = '3f6a2d8c1b47'
branch_labels = None
depends_on = None

REVIEWED = "purpose <> 'model'"
COLUMNS = ['project_id', 'record_a_id', 'record_b_id', 'external_id']
PURPOSES = ('band', 'calibration', 'model', 'blocking', 'pairfile')
DECISIONS = ('match', 'non_match')
CHECKS = {
    'new': {
        'purpose_known': "(" + " OR ".join(f"purpose = '{p}'" for p in PURPOSES) + ")",
        'model_decision_known': "model_decision IS NULL OR ("
        + " OR ".join(f"model_decision = '{d}'" for d in DECISIONS) + ")",
    },
    'old': {
        'purpose_known': "purpose IN ('band', 'calibration', 'model', 'blocking', 'pairfile')",
        'model_decision_known': "model_decision IS NULL OR model_decision IN ('match', 'non_match')",
    },
}


def upgrade(engine_name):
    globals()["upgrade_%s" % engine_name]()


def downgrade(engine_name):
    globals()["downgrade_%s" % engine_name]()


def _triggers_aside():
    """Drop SQLite's triggers (a rebuilt ``pairs`` is renamed into place, which checks every
    trigger's SQL against a schema without it); return their SQL to make them again."""
    if op.get_bind().dialect.name != "sqlite":
        return []
    rows = op.get_bind().exec_driver_sql(
        "SELECT name, sql FROM sqlite_master WHERE type = 'trigger' ORDER BY name"
    ).all()
    for name, _ in rows:
        op.execute(f'DROP TRIGGER "{name}"')
    return [sql for _, sql in rows]


def _replace_checks(batch_op, checks):
    for name, sql in checks.items():
        batch_op.drop_constraint(batch_op.f(f'ck_pairs_{name}'), type_='check')
        batch_op.create_check_constraint(batch_op.f(f'ck_pairs_{name}'), sql)


def upgrade_():
    triggers = _triggers_aside()
    with op.batch_alter_table('pairs', schema=None) as batch_op:
        batch_op.drop_constraint(batch_op.f('fk_pairs_project_id_projects'), type_='foreignkey')
        batch_op.drop_constraint(batch_op.f('fk_pairs_record_a_id_records'), type_='foreignkey')
        batch_op.drop_constraint(batch_op.f('fk_pairs_record_b_id_records'), type_='foreignkey')
        batch_op.drop_constraint(batch_op.f('uq_pairs_project_id_record_a_id_record_b_id_external_id'), type_='unique')
        _replace_checks(batch_op, CHECKS['new'])
    op.create_index(
        'uq_pairs_reviewed', 'pairs', COLUMNS, unique=True,
        sqlite_where=sa.text(REVIEWED), postgresql_where=sa.text(REVIEWED),
    )
    for sql in triggers:
        op.execute(sql)


def downgrade_():
    triggers = _triggers_aside()
    op.drop_index('uq_pairs_reviewed', table_name='pairs')
    with op.batch_alter_table('pairs', schema=None) as batch_op:
        batch_op.create_unique_constraint(batch_op.f('uq_pairs_project_id_record_a_id_record_b_id_external_id'), COLUMNS)
        batch_op.create_foreign_key(batch_op.f('fk_pairs_project_id_projects'), 'projects', ['project_id'], ['id'], ondelete='CASCADE')
        batch_op.create_foreign_key(batch_op.f('fk_pairs_record_a_id_records'), 'records', ['record_a_id'], ['id'], ondelete='CASCADE')
        batch_op.create_foreign_key(batch_op.f('fk_pairs_record_b_id_records'), 'records', ['record_b_id'], ['id'], ondelete='CASCADE')
        _replace_checks(batch_op, CHECKS['old'])
    for sql in triggers:
        op.execute(sql)


def upgrade_vault():
    pass


def downgrade_vault():
    pass
