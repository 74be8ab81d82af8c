"""jobs: the step a running job is at (``step``), in words

Revision ID: d7a3c5e9f102
Revises: d4a7e2c9b610
Create Date: 2026-12-02 02:30:00

A long job says what it is doing now ("estimating u by random sampling of 1,000,000 pairs"),
beside its count of steps; a job that waits says why ("starting a job process"). Existing
rows have none.
"""
from alembic import op
import sqlalchemy as sa


# revision identifiers, used by Alembic.
revision = 'd7a3c5e9f102'
down_revision = 'd4a7e2c9b610'
branch_labels = None
depends_on = None


def upgrade(engine_name):
    globals()["upgrade_%s" % engine_name]()


def downgrade(engine_name):
    globals()["downgrade_%s" % engine_name]()


def upgrade_():
    with op.batch_alter_table('jobs', schema=None) as batch_op:
        batch_op.add_column(sa.Column('step', sa.String(length=200), nullable=True))


def downgrade_():
    with op.batch_alter_table('jobs', schema=None) as batch_op:
        batch_op.drop_column('step')


def upgrade_vault():
    pass


def downgrade_vault():
    pass
