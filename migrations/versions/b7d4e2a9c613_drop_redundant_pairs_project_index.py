"""drop the redundant single-column index on pairs.project_id

Revision ID: b7d4e2a9c613
Revises: e5c1a7d3b902
Create Date: 2026-11-27 15:00:00

- pairs: ``ix_pairs_project_id`` dropped. The unique (project_id, record_a_id, record_b_id,
  external_id) index and ``ix_pairs_project_round_purpose`` both lead with project_id, so
  every lookup by project (and the cascade from projects) uses one of them; the extra index
  cost every bulk import of pairs an index insert per row.
"""
from alembic import op
import sqlalchemy as sa


# revision identifiers, used by Alembic.
revision = 'b7d4e2a9c613'
down_revision = 'e5c1a7d3b902'
branch_labels = None
depends_on = None


def upgrade(engine_name):
    globals()["upgrade_%s" % engine_name]()


def downgrade(engine_name):
    globals()["downgrade_%s" % engine_name]()


def upgrade_():
    with op.batch_alter_table('pairs', schema=None) as batch_op:
        batch_op.drop_index(batch_op.f('ix_pairs_project_id'))


def downgrade_():
    with op.batch_alter_table('pairs', schema=None) as batch_op:
        batch_op.create_index(batch_op.f('ix_pairs_project_id'), ['project_id'], unique=False)


def upgrade_vault():
    pass


def downgrade_vault():
    pass
