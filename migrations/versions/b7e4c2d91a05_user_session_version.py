"""users.session_version: logging out ends the account's browser sessions

Revision ID: b7e4c2d91a05
Revises: 7e1b0c5d9a24
Create Date: 2026-11-23 12:10:00

A session cookie names the user and the version it was issued under; logout bumps the
version, so a copied cookie stops working server-side (Flask's cookie sessions cannot be
revoked otherwise).
"""
from alembic import op
import sqlalchemy as sa


# revision identifiers, used by Alembic.
revision = 'b7e4c2d91a05'
down_revision = '7e1b0c5d9a24'
branch_labels = None
depends_on = None


def upgrade(engine_name):
    globals()["upgrade_%s" % engine_name]()


def downgrade(engine_name):
    globals()["downgrade_%s" % engine_name]()


def upgrade_():
    with op.batch_alter_table('users', schema=None) as batch_op:
        batch_op.add_column(sa.Column('session_version', sa.Integer(), server_default='0', nullable=False))


def downgrade_():
    with op.batch_alter_table('users', schema=None) as batch_op:
        batch_op.drop_column('session_version')


def upgrade_vault():
    pass


def downgrade_vault():
    pass
