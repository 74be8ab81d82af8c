"""reviewer quality: known-truth checks, alerts and their actions, breaks, pair handles

Revision ID: b2f7c9e4a1d3
Revises: 7b1e4f9a2c60
Create Date: 2026-12-02 01:40:00

- projects: ``state`` may be ``checks`` (a project's synthetic checks, ``checks_of`` naming
  it); ``alert_error_rate`` (the reviewer alert's threshold), ``break_minutes`` and
  ``break_decisions`` (the break reminder).
- assignments: ``check_share``, ``check_source``, ``synthetic_pairs``, ``checks_kapr_exact``
  (the checks' part of the worker's meter) and ``paused``.
- assignment_pairs: ``handle`` (what the worker calls a pair of an assignment with checks),
  unique per assignment (None: the worker calls the pair by its id).
- decision_events: ``past_break``.
- new tables ``quality_checks``, ``reviewer_alerts``, ``alert_actions``.

Only ``projects`` is rebuilt on SQLite (its state check); the other tables get columns
and indexes added in place (their triggers stay).
"""
from alembic import op
import sqlalchemy as sa


# revision identifiers, used by Alembic.
revision = 'b2f7c9e4a1d3'
down_revision = '7b1e4f9a2c60'
branch_labels = None
depends_on = None


def upgrade(engine_name):
    globals()["upgrade_%s" % engine_name]()


def downgrade(engine_name):
    globals()["downgrade_%s" % engine_name]()


def upgrade_():
    with op.batch_alter_table('projects', schema=None) as batch_op:
        batch_op.add_column(sa.Column('checks_of', sa.Integer(), nullable=True))
        batch_op.add_column(sa.Column('alert_error_rate', sa.Float(), server_default='0.2', nullable=False))
        batch_op.add_column(sa.Column('break_minutes', sa.Integer(), nullable=True))
        batch_op.add_column(sa.Column('break_decisions', sa.Integer(), nullable=True))
        batch_op.create_foreign_key(batch_op.f('fk_projects_checks_of_projects'), 'projects', ['checks_of'], ['id'], ondelete='CASCADE')
        batch_op.create_index(batch_op.f('ix_projects_checks_of'), ['checks_of'], unique=False)
        batch_op.drop_constraint(batch_op.f('ck_projects_state_known'), type_='check')
        batch_op.create_check_constraint(batch_op.f('ck_projects_state_known'), "state IN ('importing', 'ready', 'checks')")
        batch_op.create_check_constraint(batch_op.f('ck_projects_alert_error_rate_in_range'), 'alert_error_rate > 0 AND alert_error_rate < 1')
        batch_op.create_check_constraint(batch_op.f('ck_projects_break_minutes'), 'break_minutes IS NULL OR break_minutes >= 1')
        batch_op.create_check_constraint(batch_op.f('ck_projects_break_decisions'), 'break_decisions IS NULL OR break_decisions >= 1')

    op.add_column('assignments', sa.Column('check_share', sa.Float(), nullable=True))
    op.add_column('assignments', sa.Column('check_source', sa.String(length=12), nullable=True))
    op.add_column('assignments', sa.Column('synthetic_pairs', sa.Integer(), server_default='0', nullable=False))
    op.add_column('assignments', sa.Column('checks_kapr_exact', sa.String(length=200), server_default='0', nullable=False))
    op.add_column('assignments', sa.Column('paused', sa.Boolean(), server_default=sa.false(), nullable=False))
    op.add_column('assignment_pairs', sa.Column('handle', sa.BigInteger(), nullable=True))
    op.create_index('uq_assignment_pairs_handle', 'assignment_pairs', ['assignment_id', 'handle'], unique=True)
    op.add_column('decision_events', sa.Column('past_break', sa.Boolean(), server_default=sa.false(), nullable=False))

    op.create_table('quality_checks',
    sa.Column('id', sa.Integer(), nullable=False),
    sa.Column('project_id', sa.Integer(), nullable=False),
    sa.Column('assignment_id', sa.Integer(), nullable=False),
    sa.Column('pair_id', sa.Integer(), nullable=False),
    sa.Column('source', sa.String(length=12), nullable=False),
    sa.Column('expected', sa.String(length=12), nullable=False),
    sa.CheckConstraint("expected IN ('same', 'different')", name=op.f('ck_quality_checks_expected_known')),
    sa.CheckConstraint("source IN ('synthetic', 'truth')", name=op.f('ck_quality_checks_source_known')),
    sa.ForeignKeyConstraint(['assignment_id'], ['assignments.id'], name=op.f('fk_quality_checks_assignment_id_assignments'), ondelete='CASCADE'),
    sa.ForeignKeyConstraint(['pair_id'], ['pairs.id'], name=op.f('fk_quality_checks_pair_id_pairs'), ondelete='CASCADE'),
    sa.ForeignKeyConstraint(['project_id'], ['projects.id'], name=op.f('fk_quality_checks_project_id_projects'), ondelete='CASCADE'),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_quality_checks')),
    sa.UniqueConstraint('assignment_id', 'pair_id', name=op.f('uq_quality_checks_assignment_id_pair_id'))
    )
    op.create_index(op.f('ix_quality_checks_assignment_id'), 'quality_checks', ['assignment_id'], unique=False)
    op.create_index(op.f('ix_quality_checks_project_id'), 'quality_checks', ['project_id'], unique=False)

    op.create_table('reviewer_alerts',
    sa.Column('id', sa.Integer(), nullable=False),
    sa.Column('project_id', sa.Integer(), nullable=False),
    sa.Column('assignment_id', sa.Integer(), nullable=False),
    sa.Column('worker_id', sa.Integer(), nullable=False),
    sa.Column('at', sa.DateTime(timezone=True), nullable=False),
    sa.Column('rule', sa.String(length=16), nullable=False),
    sa.Column('threshold', sa.Float(), nullable=False),
    sa.Column('after_decisions', sa.Integer(), nullable=False),
    sa.Column('checks', sa.Integer(), nullable=False),
    sa.Column('wrong', sa.Integer(), nullable=False),
    sa.Column('statistic', sa.Float(), nullable=False),
    sa.ForeignKeyConstraint(['assignment_id'], ['assignments.id'], name=op.f('fk_reviewer_alerts_assignment_id_assignments'), ondelete='CASCADE'),
    sa.ForeignKeyConstraint(['project_id'], ['projects.id'], name=op.f('fk_reviewer_alerts_project_id_projects'), ondelete='CASCADE'),
    sa.ForeignKeyConstraint(['worker_id'], ['users.id'], name=op.f('fk_reviewer_alerts_worker_id_users')),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_reviewer_alerts'))
    )
    op.create_index(op.f('ix_reviewer_alerts_assignment_id'), 'reviewer_alerts', ['assignment_id'], unique=False)
    op.create_index(op.f('ix_reviewer_alerts_project_id'), 'reviewer_alerts', ['project_id'], unique=False)

    op.create_table('alert_actions',
    sa.Column('id', sa.Integer(), nullable=False),
    sa.Column('alert_id', sa.Integer(), nullable=False),
    sa.Column('action', sa.String(length=12), nullable=False),
    sa.Column('by', sa.Integer(), nullable=False),
    sa.Column('at', sa.DateTime(timezone=True), nullable=False),
    sa.Column('to_assignment_id', sa.Integer(), nullable=True),
    sa.Column('pairs', sa.Integer(), nullable=True),
    sa.CheckConstraint("action IN ('pause', 'resume', 'reassign', 'dismiss')", name=op.f('ck_alert_actions_action_known')),
    sa.ForeignKeyConstraint(['alert_id'], ['reviewer_alerts.id'], name=op.f('fk_alert_actions_alert_id_reviewer_alerts'), ondelete='CASCADE'),
    sa.ForeignKeyConstraint(['by'], ['users.id'], name=op.f('fk_alert_actions_by_users')),
    sa.ForeignKeyConstraint(['to_assignment_id'], ['assignments.id'], name=op.f('fk_alert_actions_to_assignment_id_assignments'), ondelete='SET NULL'),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_alert_actions'))
    )
    op.create_index(op.f('ix_alert_actions_alert_id'), 'alert_actions', ['alert_id'], unique=False)


def downgrade_():
    conn = op.get_bind()
    shadows = conn.execute(sa.text("SELECT count(*) FROM projects WHERE state = 'checks'")).scalar()
    if shadows:
        raise RuntimeError(
            f"{shadows} projects hold synthetic checks; the older schema has no place for them: "
            "delete the checked assignments' projects before downgrading"
        )
    op.drop_index(op.f('ix_alert_actions_alert_id'), table_name='alert_actions')
    op.drop_table('alert_actions')
    op.drop_index(op.f('ix_reviewer_alerts_project_id'), table_name='reviewer_alerts')
    op.drop_index(op.f('ix_reviewer_alerts_assignment_id'), table_name='reviewer_alerts')
    op.drop_table('reviewer_alerts')
    op.drop_index(op.f('ix_quality_checks_project_id'), table_name='quality_checks')
    op.drop_index(op.f('ix_quality_checks_assignment_id'), table_name='quality_checks')
    op.drop_table('quality_checks')
    op.drop_column('decision_events', 'past_break')
    op.drop_index('uq_assignment_pairs_handle', table_name='assignment_pairs')
    op.drop_column('assignment_pairs', 'handle')
    for column in ('paused', 'checks_kapr_exact', 'synthetic_pairs', 'check_source', 'check_share'):
        op.drop_column('assignments', column)
    with op.batch_alter_table('projects', schema=None) as batch_op:
        batch_op.drop_constraint(batch_op.f('ck_projects_break_decisions'), type_='check')
        batch_op.drop_constraint(batch_op.f('ck_projects_break_minutes'), type_='check')
        batch_op.drop_constraint(batch_op.f('ck_projects_alert_error_rate_in_range'), type_='check')
        batch_op.drop_constraint(batch_op.f('ck_projects_state_known'), type_='check')
        batch_op.create_check_constraint(batch_op.f('ck_projects_state_known'), "state IN ('importing', 'ready')")
        batch_op.drop_index(batch_op.f('ix_projects_checks_of'))
        batch_op.drop_constraint(batch_op.f('fk_projects_checks_of_projects'), type_='foreignkey')
        batch_op.drop_column('break_decisions')
        batch_op.drop_column('break_minutes')
        batch_op.drop_column('alert_error_rate')
        batch_op.drop_column('checks_of')


def upgrade_vault():
    pass


def downgrade_vault():
    pass
