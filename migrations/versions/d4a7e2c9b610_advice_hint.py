"""projects: advice_hint, advice_reviewer (the disclosure advisor's hint, issue 37)

Revision ID: d4a7e2c9b610
Revises: 8c2f5e1a9b37
Create Date: 2026-12-02 02:30:00

``advice_hint`` turns the advisor's outline of the suggested cell on for a project's workers
(off by default); ``advice_reviewer`` names the reviewer model it advises for (``human`` or
``evidence``). Both are plain columns added in place with server defaults, so existing
projects read as before (no hint).
"""
from alembic import op
import sqlalchemy as sa


# revision identifiers, used by Alembic.
revision = 'd4a7e2c9b610'
down_revision = '8c2f5e1a9b37'
branch_labels = None
depends_on = None


def upgrade(engine_name):
    globals()["upgrade_%s" % engine_name]()


def downgrade(engine_name):
    globals()["downgrade_%s" % engine_name]()


def upgrade_():
    with op.batch_alter_table('projects', schema=None) as batch_op:
        batch_op.add_column(
            sa.Column('advice_hint', sa.Boolean(), server_default=sa.false(), nullable=False)
        )
        batch_op.add_column(
            sa.Column('advice_reviewer', sa.String(length=8), server_default='human',
                      nullable=False)
        )


def downgrade_():
    with op.batch_alter_table('projects', schema=None) as batch_op:
        batch_op.drop_column('advice_reviewer')
        batch_op.drop_column('advice_hint')


def upgrade_vault():
    pass


def downgrade_vault():
    pass
