"""account administration: one-time passwords, token labels, the account audit

Revision ID: 4be81c07d9a3
Revises: c3d8a1f0e7b2
Create Date: 2026-11-24 10:00:00

An admin's password reset sets ``users.must_change_password`` (the one-time password only
lets its user choose a new one); ``api_tokens.label`` says what a token is for, so a list of
tokens can be read; ``account_events`` records every change to an account (append-only,
never a password or a token).
"""
from alembic import op
import sqlalchemy as sa


# revision identifiers, used by Alembic.
revision = '4be81c07d9a3'
down_revision = 'c3d8a1f0e7b2'
branch_labels = None
depends_on = None


def upgrade(engine_name):
    globals()["upgrade_%s" % engine_name]()


def downgrade(engine_name):
    globals()["downgrade_%s" % engine_name]()


def upgrade_():
    with op.batch_alter_table('users', schema=None) as batch_op:
        batch_op.add_column(sa.Column('must_change_password', sa.Boolean(), server_default=sa.false(), nullable=False))
    with op.batch_alter_table('api_tokens', schema=None) as batch_op:
        batch_op.add_column(sa.Column('label', sa.String(length=80), nullable=True))
    op.create_table('account_events',
    sa.Column('id', sa.Integer(), nullable=False),
    sa.Column('at', sa.DateTime(timezone=True), nullable=False),
    sa.Column('actor_id', sa.Integer(), nullable=True),
    sa.Column('user_id', sa.Integer(), nullable=False),
    sa.Column('action', sa.String(length=24), nullable=False),
    sa.Column('detail', sa.String(length=200), nullable=True),
    sa.Column('via', sa.String(length=8), nullable=False),
    sa.ForeignKeyConstraint(['actor_id'], ['users.id'], name=op.f('fk_account_events_actor_id_users')),
    sa.ForeignKeyConstraint(['user_id'], ['users.id'], name=op.f('fk_account_events_user_id_users')),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_account_events'))
    )
    with op.batch_alter_table('account_events', schema=None) as batch_op:
        batch_op.create_index(batch_op.f('ix_account_events_user_id'), ['user_id'], unique=False)


def downgrade_():
    with op.batch_alter_table('account_events', schema=None) as batch_op:
        batch_op.drop_index(batch_op.f('ix_account_events_user_id'))
    op.drop_table('account_events')
    with op.batch_alter_table('api_tokens', schema=None) as batch_op:
        batch_op.drop_column('label')
    with op.batch_alter_table('users', schema=None) as batch_op:
        batch_op.drop_column('must_change_password')


def upgrade_vault():
    pass


def downgrade_vault():
    pass
