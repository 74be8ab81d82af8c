"""jobs: the queue of `flask jobs worker` (target, payload, attempts, max_attempts)

Revision ID: 8c2f5e1a9b37
Revises: b2f7c9e4a1d3
Create Date: 2026-12-02 02:00:00

With ``JOBS_EXECUTOR=queue`` a job waits in its row for a worker process: ``target`` names
the job function (``module:name``), ``payload`` holds its arguments until the job ends,
``attempts`` counts the workers that claimed it and ``max_attempts`` how many may (a job
stopped with its worker is queued again below it, else failed). ``ix_jobs_status_id`` serves
the workers' claim (the oldest queued job). Existing rows are jobs of the embedded executors:
no target, one attempt allowed.
"""
from alembic import op
import sqlalchemy as sa


# revision identifiers, used by Alembic.
revision = '8c2f5e1a9b37'
down_revision = 'b2f7c9e4a1d3'
branch_labels = None
depends_on = None


def upgrade(engine_name):
    globals()["upgrade_%s" % engine_name]()


def downgrade(engine_name):
    globals()["downgrade_%s" % engine_name]()


def upgrade_():
    with op.batch_alter_table('jobs', schema=None) as batch_op:
        batch_op.add_column(sa.Column('target', sa.String(length=200), nullable=True))
        batch_op.add_column(sa.Column('payload', sa.LargeBinary(), nullable=True))
        batch_op.add_column(
            sa.Column('attempts', sa.Integer(), server_default='0', nullable=False)
        )
        batch_op.add_column(
            sa.Column('max_attempts', sa.Integer(), server_default='1', nullable=False)
        )
        batch_op.create_index('ix_jobs_status_id', ['status', 'id'], unique=False)


def downgrade_():
    with op.batch_alter_table('jobs', schema=None) as batch_op:
        batch_op.drop_index('ix_jobs_status_id')
        batch_op.drop_column('max_attempts')
        batch_op.drop_column('attempts')
        batch_op.drop_column('payload')
        batch_op.drop_column('target')


def upgrade_vault():
    pass


def downgrade_vault():
    pass
