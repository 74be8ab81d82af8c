"""scored pairs, triage and rounds

Revision ID: 9f4b2c7d1e63
Revises: 4e8b1c7a9d20
Create Date: 2026-11-26 09:00:00

- pairs: a linker's ``match_probability`` and ``match_weight``, the pair's ``purpose`` (band,
  calibration, model, blocking, pairfile), its ``round`` and the ``model_decision`` of the
  triage thresholds; existing pairs are round 1, ``pairfile`` in pair-file projects and
  ``blocking`` elsewhere.
- rounds: one append-only row per batch of pairs, with its triage (the provenance of the
  model's decisions) and counts.
- assignments: ``round``; a worker holds one assignment per round of a project.
- projects: ``show_scores`` (off); sources: ``dataset`` (the linker's source name).
"""
from alembic import op
import sqlalchemy as sa


# revision identifiers, used by Alembic.
revision = '9f4b2c7d1e63'
down_revision = '4e8b1c7a9d20'
branch_labels = None
depends_on = None


def upgrade(engine_name):
    globals()["upgrade_%s" % engine_name]()


def downgrade(engine_name):
    globals()["downgrade_%s" % engine_name]()


def upgrade_():
    with op.batch_alter_table('pairs', schema=None) as batch_op:
        batch_op.add_column(sa.Column('match_probability', sa.Float(), nullable=True))
        batch_op.add_column(sa.Column('match_weight', sa.Float(), nullable=True))
        batch_op.add_column(sa.Column('purpose', sa.String(length=12), server_default='blocking', nullable=False))
        batch_op.add_column(sa.Column('round', sa.Integer(), server_default='1', nullable=False))
        batch_op.add_column(sa.Column('model_decision', sa.String(length=10), nullable=True))
        batch_op.create_check_constraint(batch_op.f('ck_pairs_purpose_known'), "purpose IN ('band', 'calibration', 'model', 'blocking', 'pairfile')")
        batch_op.create_check_constraint(batch_op.f('ck_pairs_model_decision_known'), "model_decision IS NULL OR model_decision IN ('match', 'non_match')")
        batch_op.create_check_constraint(batch_op.f('ck_pairs_round_positive'), 'round >= 1')
        batch_op.create_index('ix_pairs_project_round_purpose', ['project_id', 'round', 'purpose', 'id'], unique=False)
    op.execute(
        "UPDATE pairs SET purpose = 'pairfile' WHERE project_id IN "
        "(SELECT id FROM projects WHERE kind = 'pairfile')"
    )

    with op.batch_alter_table('assignments', schema=None) as batch_op:
        batch_op.add_column(sa.Column('round', sa.Integer(), server_default='1', nullable=False))
        batch_op.drop_constraint(batch_op.f('uq_assignments_project_id_worker_id'), type_='unique')
        batch_op.create_unique_constraint(batch_op.f('uq_assignments_project_id_worker_id_round'), ['project_id', 'worker_id', 'round'])

    with op.batch_alter_table('projects', schema=None) as batch_op:
        batch_op.add_column(sa.Column('show_scores', sa.Boolean(), server_default=sa.false(), nullable=False))

    with op.batch_alter_table('sources', schema=None) as batch_op:
        batch_op.add_column(sa.Column('dataset', sa.String(length=100), nullable=True))

    op.create_table('rounds',
    sa.Column('id', sa.Integer(), nullable=False),
    sa.Column('project_id', sa.Integer(), nullable=False),
    sa.Column('number', sa.Integer(), nullable=False),
    sa.Column('origin', sa.String(length=12), nullable=False),
    sa.Column('created_by', sa.Integer(), nullable=False),
    sa.Column('at', sa.DateTime(timezone=True), nullable=False),
    sa.Column('filename', sa.String(length=255), nullable=True),
    sa.Column('triage', sa.JSON(), nullable=True),
    sa.Column('counts', sa.JSON(), nullable=False),
    sa.ForeignKeyConstraint(['created_by'], ['users.id'], name=op.f('fk_rounds_created_by_users')),
    sa.ForeignKeyConstraint(['project_id'], ['projects.id'], name=op.f('fk_rounds_project_id_projects'), ondelete='CASCADE'),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_rounds')),
    sa.UniqueConstraint('project_id', 'number', name=op.f('uq_rounds_project_id_number'))
    )
    with op.batch_alter_table('rounds', schema=None) as batch_op:
        batch_op.create_index(batch_op.f('ix_rounds_project_id'), ['project_id'], unique=False)


def downgrade_():
    with op.batch_alter_table('rounds', schema=None) as batch_op:
        batch_op.drop_index(batch_op.f('ix_rounds_project_id'))
    op.drop_table('rounds')

    with op.batch_alter_table('sources', schema=None) as batch_op:
        batch_op.drop_column('dataset')

    with op.batch_alter_table('projects', schema=None) as batch_op:
        batch_op.drop_column('show_scores')

    # The older schema holds one assignment per worker and project: later rounds' go.
    op.execute("DELETE FROM assignments WHERE round > 1")
    with op.batch_alter_table('assignments', schema=None) as batch_op:
        batch_op.drop_constraint(batch_op.f('uq_assignments_project_id_worker_id_round'), type_='unique')
        batch_op.create_unique_constraint(batch_op.f('uq_assignments_project_id_worker_id'), ['project_id', 'worker_id'])
        batch_op.drop_column('round')

    with op.batch_alter_table('pairs', schema=None) as batch_op:
        batch_op.drop_index('ix_pairs_project_round_purpose')
        batch_op.drop_constraint(batch_op.f('ck_pairs_round_positive'), type_='check')
        batch_op.drop_constraint(batch_op.f('ck_pairs_model_decision_known'), type_='check')
        batch_op.drop_constraint(batch_op.f('ck_pairs_purpose_known'), type_='check')
        batch_op.drop_column('model_decision')
        batch_op.drop_column('round')
        batch_op.drop_column('purpose')
        batch_op.drop_column('match_weight')
        batch_op.drop_column('match_probability')


def upgrade_vault():
    pass


def downgrade_vault():
    pass
