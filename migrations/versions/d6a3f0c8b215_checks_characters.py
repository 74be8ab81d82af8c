"""assignments: the synthetic checks' part of the characters meter

Revision ID: d6a3f0c8b215
Revises: c9e2f4a7b1d8
Create Date: 2026-12-02 02:10:00

- assignments: ``checks_chars_disclosed`` and ``checks_chars_total``, the characters of an
  assignment's synthetic checks (``chars_disclosed`` and ``chars_total`` count the real pairs
  only, as the reports read them; the worker's meter shows the sum).
"""
from alembic import op
import sqlalchemy as sa


# revision identifiers, used by Alembic.
revision = 'd6a3f0c8b215'
down_revision = 'c9e2f4a7b1d8'
branch_labels = None
depends_on = None


def upgrade(engine_name):
    globals()["upgrade_%s" % engine_name]()


def downgrade(engine_name):
    globals()["downgrade_%s" % engine_name]()


def upgrade_():
    op.add_column('assignments', sa.Column('checks_chars_disclosed', sa.Integer(), server_default='0', nullable=False))
    op.add_column('assignments', sa.Column('checks_chars_total', sa.Integer(), server_default='0', nullable=False))


def downgrade_():
    op.drop_column('assignments', 'checks_chars_total')
    op.drop_column('assignments', 'checks_chars_disclosed')


def upgrade_vault():
    pass


def downgrade_vault():
    pass
