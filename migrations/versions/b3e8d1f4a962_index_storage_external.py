"""stored anonymity-set indexes uncompressed on PostgreSQL

Revision ID: b3e8d1f4a962
Revises: 1eeaf39c6e44
Create Date: 2026-12-02 15:20:00

- PostgreSQL: ``source_indexes.data`` is stored out of line without compression
  (``STORAGE EXTERNAL``): pglz compressing a project's stored index cost seconds at import for
  a million records, and every cold load paid the decompression. Indexes stored before keep
  their compressed form until they are written again (a new records version or a new
  project). SQLite stores no column compressed: unchanged.
"""
from alembic import op


# revision identifiers, used by Alembic.
revision = 'b3e8d1f4a962'
down_revision = '1eeaf39c6e44'
branch_labels = None
depends_on = None


def upgrade(engine_name):
    globals()["upgrade_%s" % engine_name]()


def downgrade(engine_name):
    globals()["downgrade_%s" % engine_name]()


def _storage(kind):
    if op.get_bind().dialect.name == 'postgresql':
        op.execute(f'ALTER TABLE source_indexes ALTER COLUMN "data" SET STORAGE {kind}')


def upgrade_():
    _storage('EXTERNAL')


def downgrade_():
    _storage('EXTENDED')


def upgrade_vault():
    pass


def downgrade_vault():
    pass
