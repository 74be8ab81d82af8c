"""Close-out leaves no uploaded value on the disk (issue 40, point 1): the raw bytes of the
database files (SQLite: both files and their -wal/-shm; PostgreSQL: the schema's table,
index and TOAST files and pg_statistic) and of every file under the instance-like folder
(staged uploads, predictions, scoring working folders). Each scan first finds the values,
so it can fail. A reader of an older state makes the pass wait, said so, and close-due
finishes it."""

from __future__ import annotations

import io
import os
import sqlite3
import uuid
from pathlib import Path

import pytest
from werkzeug.datastructures import FileStorage

from app.extensions import db
from app.models import Project, StorageErasure
from app.projects.custody import close_project, erase_storage, pending_erasures
from app.projects.custody import erasure as erasure_module
from app.projects.importing.uploads import stage_one
from app.projects.lifecycle import create_project
from app.projects.scoring.runs.recovery import claim_work_dir, work_root
from app.projects.scoring.service import predictions_file
from app.review.answers.save import save_answer
from tests.factories import make_assignment, make_user
from tests.projects.custody.disk import (
    database_files,
    own_database,
    pg_connect,
    stored_values,
    values_on_disk,
)

PG = bool(os.environ.get("TEST_DATABASE_URL"))


@pytest.fixture
def database_config(tmp_path):
    yield from own_database(tmp_path)


@pytest.fixture
def app_overrides(tmp_path):
    return {
        "UPLOAD_FOLDER": str(tmp_path / "uploads"),
        "SCORING_OUTPUT_DIR": str(tmp_path / "scoring"),
        "SCORING_WORK_DIR": str(tmp_path / "scoring-work"),
        # a shared server's other transactions must end first (VACUUM FULL would keep rows)
        "CLOSEOUT_ERASE_WAIT_SECONDS": 120,
    }


def _spec(tag: str) -> dict:
    def record(rid, first, last, dob, dx):
        return {"id": rid, "first_name": f"{first}{tag}", "last_name": f"{last}{tag}",
                "dob": dob, "diagnosis": f"{dx}{tag}"}  # fmt: skip

    return {
        "name": "Erasure",
        "kind": "link",
        "attributes": [
            {"name": "first_name", "type": "string"},
            {"name": "last_name", "type": "string"},
            {"name": "dob", "type": "date"},
            {"name": "diagnosis", "type": "string", "sensitive": True},
        ],
        "records_a": [record("a1", "quenbyx", "zorvath", "03/14/1931", "sarcoid"),
                      record("a2", "wrelda", "plimsoll", "11/29/1947", "hemochrom")],
        "records_b": [record("b1", "quenbyxe", "zorvath", "03/14/1931", "sarcoidb"),
                      record("b2", "wrelda", "plimsol", "11/29/1947", "hemochromb")],
        "pairs": [["a1", "b1"], ["a2", "b2"], ["a1", "b2"]],
        "name_frequencies": {"first": {f"ysolde{tag}": 3}, "last": {f"trevannion{tag}": 2}},
    }  # fmt: skip


@pytest.fixture
def finished(app):
    """A project reviewed to the end, with a staged upload, a predictions file and a dead
    scoring run's working folder holding its values; its id and those values."""
    tag = uuid.uuid4().hex[:8]  # values no other test (or schema) holds
    with app.app_context():
        manager, wes = make_user("max", "manager"), make_user("wes")
        project = create_project(_spec(tag), manager)
        db.session.commit()
        assignment = make_assignment(project, wes)
        for link in assignment.pairs:
            save_answer(assignment.id, link.pair_id, "same", "high", by=wes)
            db.session.commit()
        pid, values = project.id, stored_values(project.id)
        sample = values[0].encode()
        upload = FileStorage(io.BytesIO(b"a\n" + sample + b"\n"), filename="scores.csv")
        stage_one("scores", "scores", upload, manager.id, project_id=pid)
        predictions = predictions_file(pid, 1)
        predictions.parent.mkdir(parents=True)
        predictions.write_bytes(sample)
        dead = claim_work_dir(work_root(), f"job999-project{pid}-")
        (dead.path / "work.duckdb.wal").write_bytes(sample)
        dead.lock.close()  # its process was killed
        db.session.commit()
        if PG:  # as autovacuum would: statistics of the value columns must hold no value
            with db.engines[None].connect() as conn:
                conn.exec_driver_sql("ANALYZE records, name_frequencies, vault_records")
                conn.commit()
        else:  # pages freed with the values in them, as by a build without secure deletion
            for engine, table in (
                (db.engines[None], "records"),
                (db.engines["vault"], "vault_records"),
            ):
                raw = sqlite3.connect(engine.url.database, isolation_level=None)
                raw.execute("PRAGMA secure_delete = OFF")
                raw.execute(f"CREATE TABLE half_import AS SELECT * FROM {table}")
                raw.execute("DROP TABLE half_import")
                raw.close()
    assert len(values) >= 12
    return pid, values


def close(app, project_id: int) -> StorageErasure:
    """Close the project out as the page does; the erasure pass recorded (detached)."""
    with app.app_context():
        project = db.session.get(Project, project_id)
        close_project(project, project.owner)
        db.session.commit()
        erasure = erase_storage([project_id])
        db.session.refresh(erasure)
        db.session.expunge(erasure)
        return erasure


def server_connection(app):
    """A connection of another process of the running server: open, idle, having read."""
    with app.app_context():
        url = db.engines[None].url
        if url.get_backend_name() == "sqlite":
            conns = [sqlite3.connect(e.url.database) for e in db.engines.values()]
            for conn in conns:
                conn.execute("SELECT count(*) FROM sqlite_master").fetchone()
            return conns
        conn = pg_connect(autocommit=True)
    conn.execute("SELECT count(*) FROM records").fetchone()
    return [conn]


def test_close_out_leaves_no_uploaded_value_on_disk(app, finished, tmp_path):
    project_id, values = finished
    others = server_connection(app)
    try:
        with app.app_context():
            before = values_on_disk(values, tmp_path)
            files = {str(p) for p in database_files()}
        assert set(before) & files, "the scan finds no value in the database files before"
        if not PG:  # as `make run` serves: WAL mode, the values in the -wal files too
            assert {Path(f).name for f in before} >= {"main.sqlite-wal", "vault.sqlite-wal"}
        folders = {Path(f).relative_to(tmp_path).parts[0] for f in before if f not in files}
        assert folders == {"uploads", "scoring", "scoring-work"}
        erasure = close(app, project_id)
        assert erasure.complete, erasure.detail
        with app.app_context():
            assert values_on_disk(values, tmp_path) == {}
            assert pending_erasures() == []
    finally:
        for conn in others:
            conn.close()
    engines = {d["engine"] for d in erasure.detail["databases"]}
    assert engines == {"postgresql" if PG else "sqlite"}
    assert any("backups" in line for line in erasure.detail["beyond_reach"])
    if PG:
        assert any("WAL segments" in line for line in erasure.detail["beyond_reach"])


def _hold_old_snapshot(app):
    """A transaction of another session that began before the close-out and still reads."""
    with app.app_context():
        if db.engines[None].dialect.name == "sqlite":
            conn = sqlite3.connect(db.engines[None].url.database, isolation_level=None)
            conn.execute("BEGIN")
        else:
            conn = pg_connect()
            conn.execute("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ")
    conn.execute("SELECT count(*) FROM projects").fetchone()
    return conn


def test_a_reader_of_the_old_state_makes_the_pass_wait_and_close_due_finish_it(
    app, finished, tmp_path, runner
):
    project_id, values = finished
    app.config["CLOSEOUT_ERASE_WAIT_SECONDS"] = 0.3
    reader = _hold_old_snapshot(app)
    try:
        erasure = close(app, project_id)
        assert not erasure.complete
        waiting = [d["pending"] for d in erasure.detail["databases"] if "pending" in d]
        assert waiting and all("older" in reason for reason in waiting)
        with app.app_context():
            assert pending_erasures() == [project_id]
            left = values_on_disk(values)
        assert left, "the pending pass reported nothing left, yet the old state was held"
        page = runner.invoke(args=["projects", "close-due"])
        assert "not yet erased" in page.output  # still held: said so again
    finally:
        reader.rollback() if PG else reader.execute("ROLLBACK")
        reader.close()
    app.config["CLOSEOUT_ERASE_WAIT_SECONDS"] = 120
    out = runner.invoke(args=["projects", "close-due"])
    assert out.exit_code == 0, out.output
    assert "1 project(s) destroyed, and erased from the database files" in out.output
    with app.app_context():
        assert pending_erasures() == []
        assert values_on_disk(values, tmp_path) == {}


@pytest.mark.postgres
def test_a_lock_held_past_the_wait_leaves_the_pass_pending_and_the_pool_as_it_was(
    app, finished, monkeypatch
):
    project_id, _ = finished
    app.config["CLOSEOUT_ERASE_WAIT_SECONDS"] = 0.3
    # other tests' transactions on a shared server: the reader test covers that wait
    monkeypatch.setattr(erasure_module, "_OLDER", "SELECT 0, 0")
    with app.app_context():
        db.engines["vault"].dispose()  # one pooled connection from here: the pass's
        holder = pg_connect()  # READ COMMITTED: no old snapshot, a lock
    holder.execute("LOCK TABLE vault_records IN ACCESS SHARE MODE")
    try:
        erasure = close(app, project_id)
    finally:
        holder.rollback()
        holder.close()
    (vault,) = [d for d in erasure.detail["databases"] if d["tables"] == ["vault_records"]]
    assert "LockNotAvailable" in vault["pending"] and not erasure.complete
    with app.app_context(), db.engines["vault"].connect() as conn:
        assert conn.exec_driver_sql("SHOW lock_timeout").scalar() == "0"
