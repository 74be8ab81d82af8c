"""scoring_models: a project's Splink models and their last predictions

Revision ID: 4e8b1c7a9d20
Revises: 4be81c07d9a3
Create Date: 2026-11-26 10:30:00

A model is uploaded (Splink's JSON, checked and rewritten by the application) or trained in
the application; a scoring job writes its predictions to a Parquet file under the instance
folder and records it here.
"""
from alembic import op
import sqlalchemy as sa


# revision identifiers, used by Alembic.
revision = '4e8b1c7a9d20'
down_revision = '4be81c07d9a3'
branch_labels = None
depends_on = None


def upgrade(engine_name):
    globals()["upgrade_%s" % engine_name]()


def downgrade(engine_name):
    globals()["downgrade_%s" % engine_name]()


def upgrade_():
    op.create_table(
        'scoring_models',
        sa.Column('id', sa.Integer(), nullable=False),
        sa.Column('project_id', sa.Integer(), nullable=False),
        sa.Column('origin', sa.String(length=12), nullable=False),
        sa.Column('settings', sa.JSON(), nullable=True),
        sa.Column('training', sa.JSON(), nullable=True),
        sa.Column('created_by', sa.Integer(), nullable=True),
        sa.Column('job_id', sa.Integer(), nullable=True),
        sa.Column('predictions', sa.String(length=300), nullable=True),
        sa.Column('predicted_pairs', sa.Integer(), nullable=True),
        sa.Column('predicted_at', sa.DateTime(timezone=True), nullable=True),
        sa.Column('run_job_id', sa.Integer(), nullable=True),
        sa.Column('backend', sa.String(length=12), nullable=True),
        sa.Column('created_at', sa.DateTime(timezone=True), nullable=False),
        sa.CheckConstraint("origin IN ('uploaded', 'trained')", name=op.f('ck_scoring_models_origin_known')),
        sa.ForeignKeyConstraint(['created_by'], ['users.id'], name=op.f('fk_scoring_models_created_by_users'), ondelete='SET NULL'),
        sa.ForeignKeyConstraint(['job_id'], ['jobs.id'], name=op.f('fk_scoring_models_job_id_jobs'), ondelete='SET NULL'),
        sa.ForeignKeyConstraint(['run_job_id'], ['jobs.id'], name=op.f('fk_scoring_models_run_job_id_jobs'), ondelete='SET NULL'),
        sa.ForeignKeyConstraint(['project_id'], ['projects.id'], name=op.f('fk_scoring_models_project_id_projects'), ondelete='CASCADE'),
        sa.PrimaryKeyConstraint('id', name=op.f('pk_scoring_models')),
    )
    with op.batch_alter_table('scoring_models', schema=None) as batch_op:
        batch_op.create_index(batch_op.f('ix_scoring_models_project_id'), ['project_id'], unique=False)


def downgrade_():
    with op.batch_alter_table('scoring_models', schema=None) as batch_op:
        batch_op.drop_index(batch_op.f('ix_scoring_models_project_id'))
    op.drop_table('scoring_models')


def upgrade_vault():
    pass


def downgrade_vault():
    pass
