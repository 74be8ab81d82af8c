"""answer states and pair answers, kept by triggers

Revision ID: 3f6a2d8c1b47
Revises: a4d9e2b7c1f8
Create Date: 2026-11-27 15:25:00

- answer_states: the newest decision event of each (assignment, pair) and its decision.
- pair_answers: per pair a reviewer answered, its reviewer slots (``due``), current answers
  by kind and the first two coders' answers.
- Triggers on decision_events (and assignment_pairs, for ``due``) keep both, on SQLite and
  PostgreSQL; existing answers are copied in (the SQL is this revision's own copy of
  ``app.models.events.TRIGGERS``).
"""
from alembic import op
import sqlalchemy as sa


# revision identifiers, used by Alembic.
revision = '3f6a2d8c1b47'
down_revision = 'a4d9e2b7c1f8'
branch_labels = None
depends_on = None

SQLITE = ["CREATE TRIGGER decision_events_current AFTER INSERT ON decision_events\nBEGIN\n    INSERT INTO answer_states (assignment_id, pair_id, event_id, decision)\n    VALUES (NEW.assignment_id, NEW.pair_id, NEW.id, NEW.decision)\n    ON CONFLICT (assignment_id, pair_id) DO UPDATE\n    SET event_id = excluded.event_id, decision = excluded.decision\n    WHERE excluded.event_id > answer_states.event_id;\n    INSERT OR REPLACE INTO pair_answers (pair_id, project_id, due, answers, same, different, unsure, first, second)\n    SELECT NEW.pair_id, (SELECT project_id FROM pairs WHERE id = NEW.pair_id), v.* FROM (SELECT (SELECT count(*) FROM assignment_pairs ap JOIN assignments a ON a.id = ap.assignment_id\n    WHERE a.project_id = (SELECT project_id FROM pairs WHERE id = NEW.pair_id) AND NOT a.resolver AND ap.pair_id = NEW.pair_id), c.* , (SELECT s.decision FROM answer_states s JOIN assignments a ON a.id = s.assignment_id\n    WHERE s.pair_id = NEW.pair_id AND s.decision <> 'cleared' AND NOT a.resolver ORDER BY s.assignment_id LIMIT 1 OFFSET 0), (SELECT s.decision FROM answer_states s JOIN assignments a ON a.id = s.assignment_id\n    WHERE s.pair_id = NEW.pair_id AND s.decision <> 'cleared' AND NOT a.resolver ORDER BY s.assignment_id LIMIT 1 OFFSET 1) FROM (SELECT count(*), coalesce(sum(CASE WHEN s.decision = 'same' THEN 1 ELSE 0 END), 0), coalesce(sum(CASE WHEN s.decision = 'different' THEN 1 ELSE 0 END), 0), coalesce(sum(CASE WHEN s.decision = 'unsure' THEN 1 ELSE 0 END), 0) FROM answer_states s JOIN assignments a ON a.id = s.assignment_id\n    WHERE s.pair_id = NEW.pair_id AND s.decision <> 'cleared' AND NOT a.resolver) c) v\n    WHERE NOT (SELECT resolver FROM assignments WHERE id = NEW.assignment_id);\nEND", 'CREATE TRIGGER assignment_pairs_due AFTER INSERT ON assignment_pairs\nBEGIN\n    UPDATE pair_answers SET due = due + 1\n    WHERE pair_id = NEW.pair_id\n    AND NOT (SELECT resolver FROM assignments WHERE id = NEW.assignment_id);\nEND']

POSTGRESQL = ["CREATE OR REPLACE FUNCTION decision_events_current() RETURNS trigger LANGUAGE plpgsql AS $$\nDECLARE\n    is_resolver boolean;\n    project integer;\nBEGIN\n    INSERT INTO answer_states (assignment_id, pair_id, event_id, decision)\n    VALUES (NEW.assignment_id, NEW.pair_id, NEW.id, NEW.decision)\n    ON CONFLICT (assignment_id, pair_id) DO UPDATE\n    SET event_id = EXCLUDED.event_id, decision = EXCLUDED.decision\n    WHERE answer_states.event_id < EXCLUDED.event_id;\n    SELECT resolver, project_id INTO is_resolver, project FROM assignments\n    WHERE id = NEW.assignment_id;\n    IF is_resolver THEN\n        RETURN NULL;\n    END IF;\n    -- Answers share this lock; a new reviewer slot takes it alone (assignment_pairs_due).\n    PERFORM pg_advisory_xact_lock_shared(2424, project);\n    -- Lock the pair's row, then count in a new statement: its snapshot sees what another\n    -- reviewer's answer committed while this one waited (READ COMMITTED).\n    INSERT INTO pair_answers (pair_id, project_id) VALUES (NEW.pair_id, (SELECT project_id FROM pairs WHERE id = NEW.pair_id))\n    ON CONFLICT (pair_id) DO NOTHING;\n    PERFORM 1 FROM pair_answers WHERE pair_id = NEW.pair_id FOR UPDATE;\n    UPDATE pair_answers p SET (due, answers, same, different, unsure, first, second) = (SELECT (SELECT count(*) FROM assignment_pairs ap JOIN assignments a ON a.id = ap.assignment_id\n    WHERE a.project_id = p.project_id AND NOT a.resolver AND ap.pair_id = NEW.pair_id), c.* , (SELECT s.decision FROM answer_states s JOIN assignments a ON a.id = s.assignment_id\n    WHERE s.pair_id = NEW.pair_id AND s.decision <> 'cleared' AND NOT a.resolver ORDER BY s.assignment_id LIMIT 1 OFFSET 0), (SELECT s.decision FROM answer_states s JOIN assignments a ON a.id = s.assignment_id\n    WHERE s.pair_id = NEW.pair_id AND s.decision <> 'cleared' AND NOT a.resolver ORDER BY s.assignment_id LIMIT 1 OFFSET 1) FROM (SELECT count(*), coalesce(sum(CASE WHEN s.decision = 'same' THEN 1 ELSE 0 END), 0), coalesce(sum(CASE WHEN s.decision = 'different' THEN 1 ELSE 0 END), 0), coalesce(sum(CASE WHEN s.decision = 'unsure' THEN 1 ELSE 0 END), 0) FROM answer_states s JOIN assignments a ON a.id = s.assignment_id\n    WHERE s.pair_id = NEW.pair_id AND s.decision <> 'cleared' AND NOT a.resolver) c)\n    WHERE p.pair_id = NEW.pair_id;\n    RETURN NULL;\nEND $$", 'CREATE TRIGGER decision_events_current AFTER INSERT ON decision_events\nFOR EACH ROW EXECUTE FUNCTION decision_events_current()', 'CREATE OR REPLACE FUNCTION assignment_pairs_due() RETURNS trigger LANGUAGE plpgsql AS $$\nBEGIN\n    PERFORM pg_advisory_xact_lock(2424, a.project_id)\n    FROM assignments a WHERE a.id IN (SELECT DISTINCT assignment_id FROM added);\n    UPDATE pair_answers p SET due = p.due + n.slots\n    FROM (\n        SELECT x.pair_id, count(*) AS slots FROM added x\n        JOIN pair_answers q ON q.pair_id = x.pair_id\n        JOIN assignments a ON a.id = x.assignment_id\n        WHERE NOT a.resolver GROUP BY x.pair_id\n    ) n\n    WHERE p.pair_id = n.pair_id;\n    RETURN NULL;\nEND $$', 'CREATE TRIGGER assignment_pairs_due AFTER INSERT ON assignment_pairs\nREFERENCING NEW TABLE AS added FOR EACH STATEMENT EXECUTE FUNCTION assignment_pairs_due()']

BACKFILL = [
    """INSERT INTO answer_states (assignment_id, pair_id, event_id, decision)
    SELECT d.assignment_id, d.pair_id, d.id, d.decision FROM decision_events d
    WHERE d.id IN (SELECT max(id) FROM decision_events GROUP BY assignment_id, pair_id)""",
    """INSERT INTO pair_answers (pair_id, project_id)
    SELECT DISTINCT s.pair_id, p.project_id FROM answer_states s
    JOIN assignments a ON a.id = s.assignment_id JOIN pairs p ON p.id = s.pair_id
    WHERE NOT a.resolver""",
    "UPDATE pair_answers SET (due, answers, same, different, unsure, first, second) = (SELECT (SELECT count(*) FROM assignment_pairs ap JOIN assignments a ON a.id = ap.assignment_id\n    WHERE a.project_id = pair_answers.project_id AND NOT a.resolver AND ap.pair_id = pair_answers.pair_id), c.* , (SELECT s.decision FROM answer_states s JOIN assignments a ON a.id = s.assignment_id\n    WHERE s.pair_id = pair_answers.pair_id AND s.decision <> 'cleared' AND NOT a.resolver ORDER BY s.assignment_id LIMIT 1 OFFSET 0), (SELECT s.decision FROM answer_states s JOIN assignments a ON a.id = s.assignment_id\n    WHERE s.pair_id = pair_answers.pair_id AND s.decision <> 'cleared' AND NOT a.resolver ORDER BY s.assignment_id LIMIT 1 OFFSET 1) FROM (SELECT count(*), coalesce(sum(CASE WHEN s.decision = 'same' THEN 1 ELSE 0 END), 0), coalesce(sum(CASE WHEN s.decision = 'different' THEN 1 ELSE 0 END), 0), coalesce(sum(CASE WHEN s.decision = 'unsure' THEN 1 ELSE 0 END), 0) FROM answer_states s JOIN assignments a ON a.id = s.assignment_id\n    WHERE s.pair_id = pair_answers.pair_id AND s.decision <> 'cleared' AND NOT a.resolver) c)",
]


def upgrade(engine_name):
    globals()["upgrade_%s" % engine_name]()


def downgrade(engine_name):
    globals()["downgrade_%s" % engine_name]()


def upgrade_():
    op.create_table('answer_states',
    sa.Column('assignment_id', sa.Integer(), nullable=False),
    sa.Column('pair_id', sa.Integer(), nullable=False),
    sa.Column('event_id', sa.Integer(), nullable=False),
    sa.Column('decision', sa.String(length=12), nullable=False),
    sa.ForeignKeyConstraint(['assignment_id'], ['assignments.id'], name=op.f('fk_answer_states_assignment_id_assignments'), ondelete='CASCADE'),
    sa.ForeignKeyConstraint(['pair_id'], ['pairs.id'], name=op.f('fk_answer_states_pair_id_pairs'), ondelete='CASCADE'),
    sa.PrimaryKeyConstraint('assignment_id', 'pair_id', name=op.f('pk_answer_states'))
    )
    with op.batch_alter_table('answer_states', schema=None) as batch_op:
        batch_op.create_index('ix_answer_states_pair', ['pair_id'], unique=False)
        batch_op.create_index('ix_answer_states_assignment_decision', ['assignment_id', 'decision'], unique=False)

    op.create_table('pair_answers',
    sa.Column('pair_id', sa.Integer(), nullable=False),
    sa.Column('project_id', sa.Integer(), nullable=False),
    sa.Column('due', sa.Integer(), server_default='0', nullable=False),
    sa.Column('answers', sa.Integer(), server_default='0', nullable=False),
    sa.Column('same', sa.Integer(), server_default='0', nullable=False),
    sa.Column('different', sa.Integer(), server_default='0', nullable=False),
    sa.Column('unsure', sa.Integer(), server_default='0', nullable=False),
    sa.Column('first', sa.String(length=12), nullable=True),
    sa.Column('second', sa.String(length=12), nullable=True),
    sa.ForeignKeyConstraint(['pair_id'], ['pairs.id'], name=op.f('fk_pair_answers_pair_id_pairs'), ondelete='CASCADE'),
    sa.ForeignKeyConstraint(['project_id'], ['projects.id'], name=op.f('fk_pair_answers_project_id_projects'), ondelete='CASCADE'),
    sa.PrimaryKeyConstraint('pair_id', name=op.f('pk_pair_answers'))
    )
    with op.batch_alter_table('pair_answers', schema=None) as batch_op:
        batch_op.create_index('ix_pair_answers_counts', ['project_id', 'answers', 'due', 'same', 'different', 'unsure', 'first', 'second'], unique=False)

    for statement in BACKFILL:
        op.execute(statement)
    name = op.get_bind().dialect.name
    for statement in {"sqlite": SQLITE, "postgresql": POSTGRESQL}.get(name, []):
        op.execute(statement)


def downgrade_():
    name = op.get_bind().dialect.name
    op.execute("DROP TRIGGER IF EXISTS assignment_pairs_due" + (" ON assignment_pairs" if name == "postgresql" else ""))
    op.execute("DROP TRIGGER IF EXISTS decision_events_current" + (" ON decision_events" if name == "postgresql" else ""))
    if name == "postgresql":
        op.execute("DROP FUNCTION IF EXISTS assignment_pairs_due()")
        op.execute("DROP FUNCTION IF EXISTS decision_events_current()")
    with op.batch_alter_table('pair_answers', schema=None) as batch_op:
        batch_op.drop_index('ix_pair_answers_counts')
    op.drop_table('pair_answers')
    with op.batch_alter_table('answer_states', schema=None) as batch_op:
        batch_op.drop_index('ix_answer_states_assignment_decision')
        batch_op.drop_index('ix_answer_states_pair')
    op.drop_table('answer_states')


def upgrade_vault():
    pass


def downgrade_vault():
    pass
