"""conflict policies, resolver assignments, pair-file ids on pairs

Revision ID: 5d2a9c41e7b3
Revises: 0c313306c228
Create Date: 2026-11-23 06:20:00

- projects: ``conflict_policy`` and ``resolver_budget``; assignments: ``resolver``;
  new table ``conflict_referrals``.
- A pair file's ``PairID`` moves from ``pair_file_keys`` onto ``pairs.external_id``, which
  joins the pair's unique key. A record pair the file repeated used to be paired through a
  copy of record A (external id ``ID@PairID``); such pairs now point at the original record
  and the copies are deleted (their sources' counts and the project's records version move
  with them), so anonymity sets count each record once. The copies' vault rows hold the same
  values as their originals' and are left for project deletion to remove: the vault is
  another database, and nothing reads a vault row without its record.
"""
from alembic import op
import sqlalchemy as sa


# revision identifiers, used by Alembic.
revision = '5d2a9c41e7b3'
down_revision = '0c313306c228'
branch_labels = None
depends_on = None


def upgrade(engine_name):
    globals()["upgrade_%s" % engine_name]()


def downgrade(engine_name):
    globals()["downgrade_%s" % engine_name]()


def upgrade_():
    with op.batch_alter_table('projects', schema=None) as batch_op:
        batch_op.add_column(sa.Column('conflict_policy', sa.String(length=16), server_default='manager', nullable=False))
        batch_op.add_column(sa.Column('resolver_budget', sa.Float(), server_default='0.05', nullable=False))
        batch_op.create_check_constraint(batch_op.f('ck_projects_conflict_policy_known'), "conflict_policy IN ('manager', 'reviewer')")
        batch_op.create_check_constraint(batch_op.f('ck_projects_resolver_budget_in_range'), 'resolver_budget >= 0 AND resolver_budget <= 1')

    with op.batch_alter_table('assignments', schema=None) as batch_op:
        batch_op.add_column(sa.Column('resolver', sa.Boolean(), server_default=sa.false(), nullable=False))

    with op.batch_alter_table('pairs', schema=None) as batch_op:
        batch_op.add_column(sa.Column('external_id', sa.String(length=100), server_default='', nullable=False))
        batch_op.drop_constraint(batch_op.f('uq_pairs_project_id_record_a_id_record_b_id'), type_='unique')

    _move_pair_file_keys()

    with op.batch_alter_table('pairs', schema=None) as batch_op:
        batch_op.create_unique_constraint(batch_op.f('uq_pairs_project_id_record_a_id_record_b_id_external_id'), ['project_id', 'record_a_id', 'record_b_id', 'external_id'])

    op.drop_table('pair_file_keys')

    op.create_table('conflict_referrals',
    sa.Column('id', sa.Integer(), nullable=False),
    sa.Column('pair_id', sa.Integer(), nullable=False),
    sa.Column('assignment_id', sa.Integer(), nullable=False),
    sa.Column('referred_by', sa.Integer(), nullable=False),
    sa.Column('at', sa.DateTime(timezone=True), nullable=False),
    sa.ForeignKeyConstraint(['assignment_id'], ['assignments.id'], name=op.f('fk_conflict_referrals_assignment_id_assignments'), ondelete='CASCADE'),
    sa.ForeignKeyConstraint(['pair_id'], ['pairs.id'], name=op.f('fk_conflict_referrals_pair_id_pairs'), ondelete='CASCADE'),
    sa.ForeignKeyConstraint(['referred_by'], ['users.id'], name=op.f('fk_conflict_referrals_referred_by_users')),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_conflict_referrals')),
    sa.UniqueConstraint('pair_id', 'assignment_id', name=op.f('uq_conflict_referrals_pair_id_assignment_id'))
    )
    with op.batch_alter_table('conflict_referrals', schema=None) as batch_op:
        batch_op.create_index(batch_op.f('ix_conflict_referrals_assignment_id'), ['assignment_id'], unique=False)
        batch_op.create_index(batch_op.f('ix_conflict_referrals_pair_id'), ['pair_id'], unique=False)


def _move_pair_file_keys():
    """Copy each PairID onto its pair and re-point pairs made through a copy of record A."""
    conn = op.get_bind()
    conn.execute(sa.text(
        "UPDATE pairs SET external_id = (SELECT k.external_id FROM pair_file_keys k"
        " WHERE k.pair_id = pairs.id) WHERE id IN (SELECT pair_id FROM pair_file_keys)"
    ))
    # (pair, copy of record A, the original record A, the copy's source and project)
    moves = conn.execute(sa.text(
        "SELECT p.id, copy.id, original.id, copy.source_id, copy.project_id"
        " FROM pairs p"
        " JOIN pair_file_keys k ON k.pair_id = p.id"
        " JOIN records copy ON copy.id = p.record_a_id"
        " JOIN records original ON original.source_id = copy.source_id"
        "  AND original.external_id = k.id_a"
        " WHERE copy.external_id <> k.id_a"
    )).all()
    for pair_id, _copy, original_id, _source, _project in moves:
        conn.execute(
            sa.text("UPDATE pairs SET record_a_id = :original WHERE id = :pair"),
            {"original": original_id, "pair": pair_id},
        )
    copies = {copy_id: source_id for _pair, copy_id, _original, source_id, _p in moves}
    for copy_id in copies:  # none is in a pair any more
        conn.execute(sa.text("DELETE FROM records WHERE id = :id"), {"id": copy_id})
    for source_id in set(copies.values()):
        conn.execute(
            sa.text("UPDATE sources SET record_count = record_count - :n WHERE id = :id"),
            {"n": sum(s == source_id for s in copies.values()), "id": source_id},
        )
    for project_id in {m[4] for m in moves}:
        conn.execute(
            sa.text("UPDATE projects SET records_version = records_version + 1 WHERE id = :id"),
            {"id": project_id},
        )


def downgrade_():
    conn = op.get_bind()
    repeated = conn.execute(sa.text(
        "SELECT COUNT(*) FROM (SELECT project_id, record_a_id, record_b_id FROM pairs"
        " GROUP BY project_id, record_a_id, record_b_id HAVING COUNT(*) > 1) AS r"
    )).scalar()
    if repeated:
        raise RuntimeError(
            f"{repeated} record pairs appear more than once (repeated pair-file pairs); the "
            "older schema cannot hold them: delete those projects before downgrading"
        )
    resolvers = conn.execute(sa.text("SELECT COUNT(*) FROM assignments WHERE resolver")).scalar()
    if resolvers:
        raise RuntimeError(
            f"{resolvers} resolver assignments exist and the older schema has none: delete "
            "them (or their projects) before downgrading"
        )
    with op.batch_alter_table('conflict_referrals', schema=None) as batch_op:
        batch_op.drop_index(batch_op.f('ix_conflict_referrals_pair_id'))
        batch_op.drop_index(batch_op.f('ix_conflict_referrals_assignment_id'))

    op.drop_table('conflict_referrals')

    op.create_table('pair_file_keys',
    sa.Column('pair_id', sa.Integer(), nullable=False),
    sa.Column('external_id', sa.String(length=100), nullable=False),
    sa.Column('id_a', sa.String(length=100), nullable=False),
    sa.Column('id_b', sa.String(length=100), nullable=False),
    sa.ForeignKeyConstraint(['pair_id'], ['pairs.id'], name=op.f('fk_pair_file_keys_pair_id_pairs'), ondelete='CASCADE'),
    sa.PrimaryKeyConstraint('pair_id', name=op.f('pk_pair_file_keys'))
    )
    conn.execute(sa.text(
        "INSERT INTO pair_file_keys (pair_id, external_id, id_a, id_b)"
        " SELECT p.id, p.external_id, a.external_id, b.external_id FROM pairs p"
        " JOIN records a ON a.id = p.record_a_id JOIN records b ON b.id = p.record_b_id"
        " WHERE p.external_id <> ''"
    ))

    with op.batch_alter_table('pairs', schema=None) as batch_op:
        batch_op.drop_constraint(batch_op.f('uq_pairs_project_id_record_a_id_record_b_id_external_id'), type_='unique')
        batch_op.create_unique_constraint(batch_op.f('uq_pairs_project_id_record_a_id_record_b_id'), ['project_id', 'record_a_id', 'record_b_id'])
        batch_op.drop_column('external_id')

    with op.batch_alter_table('assignments', schema=None) as batch_op:
        batch_op.drop_column('resolver')

    with op.batch_alter_table('projects', schema=None) as batch_op:
        batch_op.drop_constraint(batch_op.f('ck_projects_resolver_budget_in_range'), type_='check')
        batch_op.drop_constraint(batch_op.f('ck_projects_conflict_policy_known'), type_='check')
        batch_op.drop_column('resolver_budget')
        batch_op.drop_column('conflict_policy')


def upgrade_vault():
    pass


def downgrade_vault():
    pass
