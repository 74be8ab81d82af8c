"""project_attributes.truth: the manager's ground-truth column

Revision ID: c3d8a1f0e7b2
Revises: b7e4c2d91a05
Create Date: 2026-11-23 16:30:00

A ground-truth column (the generator's ``cluster_id``) is a vault column like any sensitive
one, flagged so that risk against utility uses it without being told. Projects made before
keep ``false`` and fall back on the name heuristic of ``app.analytics.truth``.
"""
from alembic import op
import sqlalchemy as sa


# revision identifiers, used by Alembic.
revision = 'c3d8a1f0e7b2'
down_revision = 'b7e4c2d91a05'
branch_labels = None
depends_on = None


def upgrade(engine_name):
    globals()["upgrade_%s" % engine_name]()


def downgrade(engine_name):
    globals()["downgrade_%s" % engine_name]()


def upgrade_():
    with op.batch_alter_table('project_attributes', schema=None) as batch_op:
        batch_op.add_column(sa.Column('truth', sa.Boolean(), server_default=sa.false(), nullable=False))


def downgrade_():
    with op.batch_alter_table('project_attributes', schema=None) as batch_op:
        batch_op.drop_column('truth')


def upgrade_vault():
    pass


def downgrade_vault():
    pass
