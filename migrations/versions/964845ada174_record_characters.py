"""records.characters: each record's characters, counted once when it is stored

Revision ID: 964845ada174
Revises: e5c1a7d3b902
Create Date: 2026-11-27 15:00:00

The characters meter's total of an assignment is the sum of its pairs' records' characters
(per identifying attribute: the normalised value's length, a category 1, missing 0). It was
counted from every record's JSON at each assignment (``json_extract`` of every identifying
attribute of a million records); it is now stored with the record. Existing records are
counted here, project by project, by that same expression; a closed project's records
(values destroyed) count 0.
"""
from alembic import op
import sqlalchemy as sa


# revision identifiers, used by Alembic.
revision = '964845ada174'
down_revision = 'e5c1a7d3b902'
branch_labels = None
depends_on = None


def upgrade(engine_name):
    globals()["upgrade_%s" % engine_name]()


def downgrade(engine_name):
    globals()["downgrade_%s" % engine_name]()


def upgrade_():
    with op.batch_alter_table('records', schema=None) as batch_op:
        batch_op.add_column(sa.Column('characters', sa.Integer(), server_default='0', nullable=False))
    _count_existing()


def _count_existing():
    """Count every stored record's characters, one UPDATE per project."""
    records = sa.table(
        'records',
        sa.column('project_id', sa.Integer),
        sa.column('values', sa.JSON),
        sa.column('characters', sa.Integer),
    )
    attributes = sa.table(
        'project_attributes',
        sa.column('project_id', sa.Integer),
        sa.column('name', sa.String),
        sa.column('kind', sa.String),
        sa.column('identifying', sa.Boolean),
        sa.column('position', sa.Integer),
    )
    bind = op.get_bind()
    query = (
        sa.select(attributes.c.project_id, attributes.c.name, attributes.c.kind)
        .where(attributes.c.identifying.is_(True))
        .order_by(attributes.c.project_id, attributes.c.position)
    )
    kinds = {}
    for project_id, name, kind in bind.execute(query):
        kinds.setdefault(project_id, []).append((name, kind))
    for project_id, named in kinds.items():
        terms = []
        for name, kind in named:
            value = records.c['values'][name].as_string()
            if kind == 'category':
                terms.append(sa.case((value.is_(None), 0), else_=1))
            else:
                terms.append(sa.func.coalesce(sa.func.length(value), 0))
        bind.execute(
            records.update()
            .where(records.c.project_id == project_id)
            .values(characters=sum(terms[1:], terms[0]))
        )


def downgrade_():
    with op.batch_alter_table('records', schema=None) as batch_op:
        batch_op.drop_column('characters')


def upgrade_vault():
    pass


def downgrade_vault():
    pass
