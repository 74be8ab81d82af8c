"""Bulk writes keep every record with its own vault row, whatever order the vault gets."""

from __future__ import annotations

from sqlalchemy import select

from app.extensions import db
from app.models import Project, Record, Source, VaultRecord
from app.projects.lifecycle import bulk


def test_vault_rows_in_pseudonym_order_still_belong_to_their_records(app, people):
    with app.app_context():
        project = Project(name="p", kind="dedupe", owner_id=people["max"])
        db.session.add(project)
        db.session.flush()
        source = Source(project_id=project.id, label="A", record_count=0)
        db.session.add(source)
        db.session.flush()
        ids = [f"r{i}" for i in range(500)]
        shown = {"name": [f"name {i}" for i in range(500)]}
        hidden = {"secret": [f"secret {i}" for i in range(500)]}
        bulk.insert_columns(project.id, source.id, ids, shown, hidden)
        db.session.flush()
        vault = {v.pseudonym: v.values for v in db.session.scalars(select(VaultRecord))}
        records = db.session.scalars(select(Record).order_by(Record.position)).all()
        assert [r.external_id for r in records] == ids  # records keep the file's order
        assert len(vault) == 500
        for i, record in enumerate(records):
            assert record.values == {"name": f"name {i}"}
            assert vault[record.pseudonym] == {"secret": f"secret {i}"}
        stored = db.session.scalars(select(VaultRecord.pseudonym)).all()  # insertion order
        assert stored == sorted(stored) != [r.pseudonym for r in records]
