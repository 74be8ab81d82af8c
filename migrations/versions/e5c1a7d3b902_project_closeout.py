"""project close-out and accountability

Revision ID: e5c1a7d3b902
Revises: 5d2a8e1f3c47
Create Date: 2026-11-27 12:00:00

- projects: ``closed_at`` (when the identifying values and the vault were destroyed) and
  ``auto_close_days`` (close automatically that many days after completion; None: never).
- project_closeouts: one append-only row per closed project: who, when, what was destroyed
  and the SHA-256 of the final exports.
- reveal_events: ``chars``, the characters a reveal disclosed (None for older reveals).
"""
from alembic import op
import sqlalchemy as sa


# revision identifiers, used by Alembic.
revision = 'e5c1a7d3b902'
down_revision = '5d2a8e1f3c47'
branch_labels = None
depends_on = None


def upgrade(engine_name):
    globals()["upgrade_%s" % engine_name]()


def downgrade(engine_name):
    globals()["downgrade_%s" % engine_name]()


def upgrade_():
    with op.batch_alter_table('projects', schema=None) as batch_op:
        batch_op.add_column(sa.Column('closed_at', sa.DateTime(timezone=True), nullable=True))
        batch_op.add_column(sa.Column('auto_close_days', sa.Integer(), nullable=True))
        batch_op.create_check_constraint(batch_op.f('ck_projects_auto_close_days'), 'auto_close_days IS NULL OR auto_close_days >= 0')

    with op.batch_alter_table('reveal_events', schema=None) as batch_op:
        batch_op.add_column(sa.Column('chars', sa.Integer(), nullable=True))

    op.create_table('project_closeouts',
    sa.Column('id', sa.Integer(), nullable=False),
    sa.Column('project_id', sa.Integer(), nullable=False),
    sa.Column('closed_by', sa.Integer(), nullable=True),
    sa.Column('at', sa.DateTime(timezone=True), nullable=False),
    sa.Column('automatic', sa.Boolean(), nullable=False),
    sa.Column('destroyed', sa.JSON(), nullable=False),
    sa.Column('exports', sa.JSON(), nullable=False),
    sa.ForeignKeyConstraint(['closed_by'], ['users.id'], name=op.f('fk_project_closeouts_closed_by_users')),
    sa.ForeignKeyConstraint(['project_id'], ['projects.id'], name=op.f('fk_project_closeouts_project_id_projects'), ondelete='CASCADE'),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_project_closeouts')),
    sa.UniqueConstraint('project_id', name=op.f('uq_project_closeouts_project_id'))
    )


def downgrade_():
    op.drop_table('project_closeouts')

    with op.batch_alter_table('reveal_events', schema=None) as batch_op:
        batch_op.drop_column('chars')

    with op.batch_alter_table('projects', schema=None) as batch_op:
        batch_op.drop_constraint(batch_op.f('ck_projects_auto_close_days'), type_='check')
        batch_op.drop_column('auto_close_days')
        batch_op.drop_column('closed_at')


def upgrade_vault():
    pass


def downgrade_vault():
    pass
