"""answers kept by one trigger call per statement on PostgreSQL

Revision ID: 1eeaf39c6e44
Revises: d6a3f0c8b215
Create Date: 2026-12-02 04:00:00

- PostgreSQL: ``decision_events_current`` runs once per statement over the statement's new
  events (a transition table) instead of once per row: a bulk insert of answers recounts each
  pair once. The state it keeps (``answer_states``, ``pair_answers``) is the row trigger's.
  ``assignment_pairs_due`` is unchanged. SQLite (row triggers only) is unchanged.
- ``POSTGRESQL`` is this revision's copy of ``app.models.events.TRIGGERS["postgresql"]``;
  ``ROW_TRIGGER`` the per-row function and trigger it replaces (the downgrade's).
"""
from alembic import op


# revision identifiers, used by Alembic.
revision = '1eeaf39c6e44'
down_revision = 'd6a3f0c8b215'
branch_labels = None
depends_on = None

POSTGRESQL = ["CREATE OR REPLACE FUNCTION decision_events_current() RETURNS trigger LANGUAGE plpgsql AS $$\nBEGIN\n    INSERT INTO answer_states (assignment_id, pair_id, event_id, decision)\n    SELECT DISTINCT ON (x.assignment_id, x.pair_id) x.assignment_id, x.pair_id, x.id, x.decision\n    FROM added x ORDER BY x.assignment_id, x.pair_id, x.id DESC\n    ON CONFLICT (assignment_id, pair_id) DO UPDATE\n    SET event_id = EXCLUDED.event_id, decision = EXCLUDED.decision\n    WHERE answer_states.event_id < EXCLUDED.event_id;\n    -- Answers share this lock; a new reviewer slot takes it alone (assignment_pairs_due).\n    PERFORM pg_advisory_xact_lock_shared(2424, l.project_id) FROM (\n        SELECT DISTINCT a.project_id FROM added x JOIN assignments a ON a.id = x.assignment_id\n        WHERE NOT a.resolver ORDER BY a.project_id\n    ) l;\n    -- Lock the pairs' rows (in id order), then count in a new statement: its snapshot sees\n    -- what another reviewer's answer committed while this one waited (READ COMMITTED).\n    INSERT INTO pair_answers (pair_id, project_id)\n    SELECT DISTINCT x.pair_id, p.project_id FROM added x\n    JOIN assignments a ON a.id = x.assignment_id JOIN pairs p ON p.id = x.pair_id\n    WHERE NOT a.resolver ORDER BY x.pair_id\n    ON CONFLICT (pair_id) DO NOTHING;\n    PERFORM 1 FROM pair_answers WHERE pair_id IN (SELECT x.pair_id FROM added x JOIN assignments a ON a.id = x.assignment_id\n        WHERE NOT a.resolver) ORDER BY pair_id FOR UPDATE;\n    UPDATE pair_answers p SET (due, answers, same, different, unsure, first, second) = (SELECT (SELECT count(*) FROM assignment_pairs ap JOIN assignments a ON a.id = ap.assignment_id\n    WHERE a.project_id = p.project_id AND NOT a.resolver AND ap.pair_id = p.pair_id), c.* , (SELECT s.decision FROM answer_states s JOIN assignments a ON a.id = s.assignment_id\n    WHERE s.pair_id = p.pair_id AND s.decision <> 'cleared' AND NOT a.resolver ORDER BY s.assignment_id LIMIT 1 OFFSET 0), (SELECT s.decision FROM answer_states s JOIN assignments a ON a.id = s.assignment_id\n    WHERE s.pair_id = p.pair_id AND s.decision <> 'cleared' AND NOT a.resolver ORDER BY s.assignment_id LIMIT 1 OFFSET 1) FROM (SELECT count(*), coalesce(sum(CASE WHEN s.decision = 'same' THEN 1 ELSE 0 END), 0), coalesce(sum(CASE WHEN s.decision = 'different' THEN 1 ELSE 0 END), 0), coalesce(sum(CASE WHEN s.decision = 'unsure' THEN 1 ELSE 0 END), 0) FROM answer_states s JOIN assignments a ON a.id = s.assignment_id\n    WHERE s.pair_id = p.pair_id AND s.decision <> 'cleared' AND NOT a.resolver) c)\n    WHERE p.pair_id IN (SELECT x.pair_id FROM added x JOIN assignments a ON a.id = x.assignment_id\n        WHERE NOT a.resolver);\n    RETURN NULL;\nEND $$", 'CREATE TRIGGER decision_events_current AFTER INSERT ON decision_events\nREFERENCING NEW TABLE AS added FOR EACH STATEMENT EXECUTE FUNCTION decision_events_current()', 'CREATE OR REPLACE FUNCTION assignment_pairs_due() RETURNS trigger LANGUAGE plpgsql AS $$\nBEGIN\n    PERFORM pg_advisory_xact_lock(2424, a.project_id)\n    FROM assignments a WHERE a.id IN (SELECT DISTINCT assignment_id FROM added);\n    UPDATE pair_answers p SET due = p.due + n.slots\n    FROM (\n        SELECT x.pair_id, count(*) AS slots FROM added x\n        JOIN pair_answers q ON q.pair_id = x.pair_id\n        JOIN assignments a ON a.id = x.assignment_id\n        WHERE NOT a.resolver GROUP BY x.pair_id\n    ) n\n    WHERE p.pair_id = n.pair_id;\n    RETURN NULL;\nEND $$', 'CREATE TRIGGER assignment_pairs_due AFTER INSERT ON assignment_pairs\nREFERENCING NEW TABLE AS added FOR EACH STATEMENT EXECUTE FUNCTION assignment_pairs_due()']

ROW_TRIGGER = ["CREATE OR REPLACE FUNCTION decision_events_current() RETURNS trigger LANGUAGE plpgsql AS $$\nDECLARE\n    is_resolver boolean;\n    project integer;\nBEGIN\n    INSERT INTO answer_states (assignment_id, pair_id, event_id, decision)\n    VALUES (NEW.assignment_id, NEW.pair_id, NEW.id, NEW.decision)\n    ON CONFLICT (assignment_id, pair_id) DO UPDATE\n    SET event_id = EXCLUDED.event_id, decision = EXCLUDED.decision\n    WHERE answer_states.event_id < EXCLUDED.event_id;\n    SELECT resolver, project_id INTO is_resolver, project FROM assignments\n    WHERE id = NEW.assignment_id;\n    IF is_resolver THEN\n        RETURN NULL;\n    END IF;\n    -- Answers share this lock; a new reviewer slot takes it alone (assignment_pairs_due).\n    PERFORM pg_advisory_xact_lock_shared(2424, project);\n    -- Lock the pair's row, then count in a new statement: its snapshot sees what another\n    -- reviewer's answer committed while this one waited (READ COMMITTED).\n    INSERT INTO pair_answers (pair_id, project_id) VALUES (NEW.pair_id, (SELECT project_id FROM pairs WHERE id = NEW.pair_id))\n    ON CONFLICT (pair_id) DO NOTHING;\n    PERFORM 1 FROM pair_answers WHERE pair_id = NEW.pair_id FOR UPDATE;\n    UPDATE pair_answers p SET (due, answers, same, different, unsure, first, second) = (SELECT (SELECT count(*) FROM assignment_pairs ap JOIN assignments a ON a.id = ap.assignment_id\n    WHERE a.project_id = p.project_id AND NOT a.resolver AND ap.pair_id = NEW.pair_id), c.* , (SELECT s.decision FROM answer_states s JOIN assignments a ON a.id = s.assignment_id\n    WHERE s.pair_id = NEW.pair_id AND s.decision <> 'cleared' AND NOT a.resolver ORDER BY s.assignment_id LIMIT 1 OFFSET 0), (SELECT s.decision FROM answer_states s JOIN assignments a ON a.id = s.assignment_id\n    WHERE s.pair_id = NEW.pair_id AND s.decision <> 'cleared' AND NOT a.resolver ORDER BY s.assignment_id LIMIT 1 OFFSET 1) FROM (SELECT count(*), coalesce(sum(CASE WHEN s.decision = 'same' THEN 1 ELSE 0 END), 0), coalesce(sum(CASE WHEN s.decision = 'different' THEN 1 ELSE 0 END), 0), coalesce(sum(CASE WHEN s.decision = 'unsure' THEN 1 ELSE 0 END), 0) FROM answer_states s JOIN assignments a ON a.id = s.assignment_id\n    WHERE s.pair_id = NEW.pair_id AND s.decision <> 'cleared' AND NOT a.resolver) c)\n    WHERE p.pair_id = NEW.pair_id;\n    RETURN NULL;\nEND $$", 'CREATE TRIGGER decision_events_current AFTER INSERT ON decision_events\nFOR EACH ROW EXECUTE FUNCTION decision_events_current()']


def upgrade(engine_name):
    globals()["upgrade_%s" % engine_name]()


def downgrade(engine_name):
    globals()["downgrade_%s" % engine_name]()


def _replace(statements):
    if op.get_bind().dialect.name != 'postgresql':
        return
    op.execute("DROP TRIGGER IF EXISTS decision_events_current ON decision_events")
    for statement in statements:
        op.execute(statement)


def upgrade_():
    _replace(POSTGRESQL[:2])


def downgrade_():
    _replace(ROW_TRIGGER)


def upgrade_vault():
    pass


def downgrade_vault():
    pass
