"""jobs: owner (host:pid) and heartbeat, so a restart can tell a dead job from a live one

Revision ID: 7a3e1f9c2b10
Revises: 5d2a9c41e7b3
Create Date: 2026-11-23 12:00:00

``jobs.owner`` is the ``host:pid`` of the process that queued or runs the job and
``jobs.heartbeat_at`` the last time it wrote to the row; ``app.jobs.reconcile_stale_jobs``
marks a job whose owner is gone (or silent too long) as failed instead of ``running`` forever.
Existing rows get NULLs: a job from before this revision has no owner to ask, and is judged
by its ``updated_at``.
"""
from alembic import op
import sqlalchemy as sa


# revision identifiers, used by Alembic.
revision = '7a3e1f9c2b10'
down_revision = '5d2a9c41e7b3'
branch_labels = None
depends_on = None


def upgrade(engine_name):
    globals()["upgrade_%s" % engine_name]()


def downgrade(engine_name):
    globals()["downgrade_%s" % engine_name]()


def upgrade_():
    with op.batch_alter_table('jobs', schema=None) as batch_op:
        batch_op.add_column(sa.Column('owner', sa.String(length=120), nullable=True))
        batch_op.add_column(sa.Column('heartbeat_at', sa.DateTime(timezone=True), nullable=True))


def downgrade_():
    with op.batch_alter_table('jobs', schema=None) as batch_op:
        batch_op.drop_column('heartbeat_at')
        batch_op.drop_column('owner')


def upgrade_vault():
    pass


def downgrade_vault():
    pass
