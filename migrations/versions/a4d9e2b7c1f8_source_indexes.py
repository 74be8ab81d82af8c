"""stored anonymity-set indexes

Revision ID: a4d9e2b7c1f8
Revises: 964845ada174
Create Date: 2026-11-27 15:00:00

- source_indexes: one row per source, its anonymity-set index as the import built it
  (``AnonymityIndex.dump``), so that the first pricing in a process loads it instead of
  building it from every record (issue 24: the budget recommendation at a million records).
"""
from alembic import op
import sqlalchemy as sa


# revision identifiers, used by Alembic.
revision = 'a4d9e2b7c1f8'
down_revision = '964845ada174'
branch_labels = None
depends_on = None


def upgrade(engine_name):
    globals()["upgrade_%s" % engine_name]()


def downgrade(engine_name):
    globals()["downgrade_%s" % engine_name]()


def upgrade_():
    op.create_table('source_indexes',
    sa.Column('source_id', sa.Integer(), nullable=False),
    sa.Column('project_id', sa.Integer(), nullable=False),
    sa.Column('records_version', sa.Integer(), nullable=False),
    sa.Column('data', sa.LargeBinary(), nullable=False),
    sa.ForeignKeyConstraint(['project_id'], ['projects.id'], name=op.f('fk_source_indexes_project_id_projects'), ondelete='CASCADE'),
    sa.ForeignKeyConstraint(['source_id'], ['sources.id'], name=op.f('fk_source_indexes_source_id_sources'), ondelete='CASCADE'),
    sa.PrimaryKeyConstraint('source_id', name=op.f('pk_source_indexes'))
    )
    with op.batch_alter_table('source_indexes', schema=None) as batch_op:
        batch_op.create_index(batch_op.f('ix_source_indexes_project_id'), ['project_id'], unique=False)


def downgrade_():
    with op.batch_alter_table('source_indexes', schema=None) as batch_op:
        batch_op.drop_index(batch_op.f('ix_source_indexes_project_id'))

    op.drop_table('source_indexes')


def upgrade_vault():
    pass


def downgrade_vault():
    pass
