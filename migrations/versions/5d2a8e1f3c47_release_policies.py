"""release policies and confirmations

Revision ID: 5d2a8e1f3c47
Revises: 9f4b2c7d1e63
Create Date: 2026-11-27 12:00:00

- release_policies: per project, the release-risk check's parameters and limits for the
  ``linked`` export, and whether an export above them asks for a confirmation or is refused.
- release_confirmations: append-only; who took the export above the limits, when and why.
"""
from alembic import op
import sqlalchemy as sa


# revision identifiers, used by Alembic.
revision = '5d2a8e1f3c47'
down_revision = '9f4b2c7d1e63'
branch_labels = None
depends_on = None


def upgrade(engine_name):
    globals()["upgrade_%s" % engine_name]()


def downgrade(engine_name):
    globals()["downgrade_%s" % engine_name]()


def upgrade_():
    op.create_table('release_policies',
    sa.Column('id', sa.Integer(), nullable=False),
    sa.Column('project_id', sa.Integer(), nullable=False),
    sa.Column('qi', sa.String(length=5100), nullable=True),
    sa.Column('sensitive', sa.String(length=5100), nullable=True),
    sa.Column('population', sa.BigInteger(), nullable=True),
    sa.Column('suppressed', sa.String(length=10), nullable=False),
    sa.Column('missing', sa.String(length=20), nullable=False),
    sa.Column('threshold', sa.Float(), nullable=False),
    sa.Column('min_k', sa.Integer(), nullable=True),
    sa.Column('max_records_at_risk', sa.Float(), nullable=True),
    sa.Column('max_average_risk', sa.Float(), nullable=True),
    sa.Column('min_l', sa.Integer(), nullable=True),
    sa.Column('on_exceed', sa.String(length=8), nullable=False),
    sa.Column('updated_by', sa.Integer(), nullable=True),
    sa.Column('updated_at', sa.DateTime(timezone=True), nullable=False),
    sa.CheckConstraint("on_exceed IN ('confirm', 'refuse')", name=op.f('ck_release_policies_on_exceed_known')),
    sa.CheckConstraint("suppressed IN ('exclude', 'wildcard')", name=op.f('ck_release_policies_suppressed_known')),
    sa.CheckConstraint('threshold > 0 AND threshold <= 1', name=op.f('ck_release_policies_threshold_in_range')),
    sa.CheckConstraint('min_k IS NULL OR min_k >= 1', name=op.f('ck_release_policies_min_k_positive')),
    sa.CheckConstraint('min_l IS NULL OR min_l >= 1', name=op.f('ck_release_policies_min_l_positive')),
    sa.ForeignKeyConstraint(['project_id'], ['projects.id'], name=op.f('fk_release_policies_project_id_projects'), ondelete='CASCADE'),
    sa.ForeignKeyConstraint(['updated_by'], ['users.id'], name=op.f('fk_release_policies_updated_by_users')),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_release_policies')),
    sa.UniqueConstraint('project_id', name=op.f('uq_release_policies_project_id'))
    )
    op.create_table('release_confirmations',
    sa.Column('id', sa.Integer(), nullable=False),
    sa.Column('project_id', sa.Integer(), nullable=False),
    sa.Column('confirmed_by', sa.Integer(), nullable=False),
    sa.Column('at', sa.DateTime(timezone=True), nullable=False),
    sa.Column('reason', sa.Text(), nullable=False),
    sa.Column('exceeded', sa.Text(), nullable=False),
    sa.ForeignKeyConstraint(['confirmed_by'], ['users.id'], name=op.f('fk_release_confirmations_confirmed_by_users')),
    sa.ForeignKeyConstraint(['project_id'], ['projects.id'], name=op.f('fk_release_confirmations_project_id_projects'), ondelete='CASCADE'),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_release_confirmations'))
    )
    with op.batch_alter_table('release_confirmations', schema=None) as batch_op:
        batch_op.create_index(batch_op.f('ix_release_confirmations_project_id'), ['project_id'], unique=False)


def downgrade_():
    with op.batch_alter_table('release_confirmations', schema=None) as batch_op:
        batch_op.drop_index(batch_op.f('ix_release_confirmations_project_id'))
    op.drop_table('release_confirmations')
    op.drop_table('release_policies')


def upgrade_vault():
    pass


def downgrade_vault():
    pass
