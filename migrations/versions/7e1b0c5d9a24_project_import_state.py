"""projects: import state, so a project is visible only once its import is complete

Revision ID: 7e1b0c5d9a24
Revises: 7a3e1f9c2b10
Create Date: 2026-11-23 12:40:00

- projects: ``state`` (``importing`` | ``ready``; existing projects are ``ready``) and,
  while importing, ``import_owner`` (``host:pid``), ``import_token`` (the staged upload) and
  ``import_job_id``, which the start-up reconciler reads to remove abandoned imports.
"""
from alembic import op
import sqlalchemy as sa


# revision identifiers, used by Alembic.
revision = '7e1b0c5d9a24'
down_revision = '7a3e1f9c2b10'
branch_labels = None
depends_on = None


def upgrade(engine_name):
    globals()["upgrade_%s" % engine_name]()


def downgrade(engine_name):
    globals()["downgrade_%s" % engine_name]()


def upgrade_():
    with op.batch_alter_table('projects', schema=None) as batch_op:
        batch_op.add_column(sa.Column('state', sa.String(length=12), server_default='ready', nullable=False))
        batch_op.add_column(sa.Column('import_owner', sa.String(length=120), nullable=True))
        batch_op.add_column(sa.Column('import_token', sa.String(length=64), nullable=True))
        batch_op.add_column(sa.Column('import_job_id', sa.Integer(), nullable=True))
        batch_op.create_foreign_key(batch_op.f('fk_projects_import_job_id_jobs'), 'jobs', ['import_job_id'], ['id'], ondelete='SET NULL')
        batch_op.create_check_constraint(batch_op.f('ck_projects_state_known'), "state IN ('importing', 'ready')")


def downgrade_():
    with op.batch_alter_table('projects', schema=None) as batch_op:
        batch_op.drop_constraint(batch_op.f('ck_projects_state_known'), type_='check')
        batch_op.drop_constraint(batch_op.f('fk_projects_import_job_id_jobs'), type_='foreignkey')
        batch_op.drop_column('import_job_id')
        batch_op.drop_column('import_token')
        batch_op.drop_column('import_owner')
        batch_op.drop_column('state')


def upgrade_vault():
    pass


def downgrade_vault():
    pass
