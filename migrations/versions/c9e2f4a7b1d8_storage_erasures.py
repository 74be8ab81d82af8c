"""storage erasures; no statistics of uploaded values on PostgreSQL

Revision ID: c9e2f4a7b1d8
Revises: d7a3c5e9f102
Create Date: 2026-12-02 03:10:00

- new table ``storage_erasures``: each pass that made a close-out's deleted values
  unreadable in the database files (VACUUM and WAL truncation on SQLite, VACUUM FULL on
  PostgreSQL), or why it waits.
- PostgreSQL: ``ANALYZE`` (autovacuum's too) no longer samples the columns of uploaded values
  into ``pg_statistic`` (statistics target 0), and the statistics it kept of them go (an
  ``ALTER COLUMN ... TYPE`` to the same type drops a column's statistics without rewriting
  the table). Their old row versions in ``pg_statistic``'s file need a superuser's
  ``VACUUM FULL pg_statistic`` (docs/closeout.md).
"""
from alembic import op
import sqlalchemy as sa


# revision identifiers, used by Alembic.
revision = 'c9e2f4a7b1d8'
down_revision = 'd7a3c5e9f102'
branch_labels = None
depends_on = None

MAIN = {'records': ('values', 'json'), 'source_indexes': ('data', 'bytea'),
        'name_frequencies': ('name', 'varchar(200)')}
VAULT = {'vault_records': ('values', 'json')}


def upgrade(engine_name):
    globals()["upgrade_%s" % engine_name]()


def downgrade(engine_name):
    globals()["downgrade_%s" % engine_name]()


def _no_statistics(columns, target):
    if op.get_bind().dialect.name != 'postgresql':
        return
    for table, (column, type_) in columns.items():
        op.execute(f'ALTER TABLE {table} ALTER COLUMN "{column}" SET STATISTICS {target}')
        if target == 0:
            op.execute(f'ALTER TABLE {table} ALTER COLUMN "{column}" TYPE {type_}')


def upgrade_():
    op.create_table('storage_erasures',
    sa.Column('id', sa.Integer(), nullable=False),
    sa.Column('project_id', sa.Integer(), nullable=False),
    sa.Column('at', sa.DateTime(timezone=True), nullable=False),
    sa.Column('complete', sa.Boolean(), nullable=False),
    sa.Column('detail', sa.JSON(), nullable=False),
    sa.ForeignKeyConstraint(['project_id'], ['projects.id'], name=op.f('fk_storage_erasures_project_id_projects'), ondelete='CASCADE'),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_storage_erasures'))
    )
    with op.batch_alter_table('storage_erasures', schema=None) as batch_op:
        batch_op.create_index(batch_op.f('ix_storage_erasures_project_id'), ['project_id'], unique=False)
    _no_statistics(MAIN, 0)


def downgrade_():
    _no_statistics(MAIN, -1)
    with op.batch_alter_table('storage_erasures', schema=None) as batch_op:
        batch_op.drop_index(batch_op.f('ix_storage_erasures_project_id'))
    op.drop_table('storage_erasures')


def upgrade_vault():
    _no_statistics(VAULT, 0)


def downgrade_vault():
    _no_statistics(VAULT, -1)
