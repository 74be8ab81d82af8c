"""Imports are all or nothing across a crash: a half import is never listed, and removed.

The crash is real: a child process runs an import job on the same database, is SIGKILLed
after its first batch is committed, and the reconciler then finds the half project.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import textwrap
from pathlib import Path

from sqlalchemy import func, select

from app.datagen import write_csv
from app.extensions import db
from app.models import Job, Project, ProjectState, Record, User, VaultRecord
from app.projects.importing.recovery import reconcile_imports
from app.projects.importing.service import import_upload, start_import
from tests.factories import PASSWORD
from tests.projects.conftest import MINDFIRL, dev_plan, stage_files

ROOT = Path(__file__).resolve().parents[3]
PLAN = {
    "id_column": "id",
    "identifying": {"voter_reg_num": "id", "first_name": "string", "last_name": "string",
                    "dob": "date", "sex": "category", "race": "category"},
    "sensitive": ["income", "diagnosis"],
    "header": ["id", "voter_reg_num", "first_name", "last_name", "dob", "sex", "race",
               "income", "diagnosis"],
    "settings": {"kappa": 1, "default_budget": 0.5, "page_size": 10},
    "on_duplicate_id": "error",
}  # fmt: skip

CHILD = textwrap.dedent(
    """
    import json, sys, time
    sys.path.insert(0, sys.argv[1])
    config, token, owner_id, job_id = json.loads(sys.argv[2])
    from app import create_app
    import app.jobs.executor as jobs
    from app.projects.importing.pending.jobs import run_check
    from app.projects.reading import records

    records.stream_batches.__kwdefaults__["batch_size"] = 100
    real_set = jobs._set

    def stall_after_first_batch(job, **values):
        written = real_set(job, **values)
        if values.get("done"):
            print("batch committed", flush=True)
            time.sleep(600)
        return written

    jobs._set = stall_after_first_batch
    app = create_app(config)
    jobs._run_in_app(app, job_id, run_check, (token, owner_id), jobs.InlineExecutor())
    """
)


def _config(app) -> dict:
    keys = ("SQLALCHEMY_DATABASE_URI", "VAULT_DATABASE_URI", "UPLOAD_FOLDER")
    config = {k: app.config[k] for k in keys}
    engine = app.config.get("SQLALCHEMY_ENGINE_OPTIONS", {})
    config["SQLALCHEMY_ENGINE_OPTIONS"] = {k: v for k, v in engine.items() if k == "connect_args"}
    return {"TESTING": True, "SECRET_KEY": "t", "AUTO_UPGRADE": False, **config}


def test_a_killed_import_leaves_no_half_project_after_the_reconciler(app, people, tmp_path):
    path = tmp_path / "people.csv"
    write_csv(path, 1_000, seed=3)
    with app.app_context():
        staged = stage_files("Killed", "dedupe", people["max"], A=path)
        staged.meta["plan"], staged.meta["rows"] = PLAN, 1_000
        staged.save()
        job = Job(kind="import", status="queued", created_by=people["max"])
        db.session.add(job)
        db.session.commit()
        job_id, staged_dir = job.id, staged.path("A").parent
    args = json.dumps([_config(app), staged.token, people["max"], job_id])
    child = subprocess.Popen(
        [sys.executable, "-c", CHILD, str(ROOT), args],
        stdout=subprocess.PIPE,
        text=True,
        cwd=ROOT,
    )
    try:
        assert child.stdout.readline().strip() == "batch committed"
    finally:
        os.kill(child.pid, signal.SIGKILL)
        child.wait()
        child.stdout.close()
    with app.app_context():
        half = db.session.scalars(select(Project)).one()
        assert half.state == ProjectState.IMPORTING and half.import_job_id == job_id
        assert 0 < db.session.scalar(select(func.count(Record.id))) < 1_000
        assert db.session.scalar(select(func.count()).select_from(VaultRecord)) > 0
        assert db.session.get(Job, job_id).status == "running"
        db.session.remove()

        assert reconcile_imports() == [half.id]
        assert db.session.scalar(select(func.count(Project.id))) == 0
        assert db.session.scalar(select(func.count(Record.id))) == 0
        assert db.session.scalar(select(func.count()).select_from(VaultRecord)) == 0
        job = db.session.get(Job, job_id)
        assert job.status == "failed" and "is gone" in job.error
        assert "removed" in job.error
    assert not staged_dir.exists()


def test_a_half_import_is_listed_nowhere(app, people, client):
    with app.app_context():
        staged = stage_files("Half", "dedupe", people["max"], A=MINDFIRL / "dev_file1.csv")
        owner = db.session.get(User, people["max"])
        project = start_import(staged, dev_plan(), owner)
        db.session.commit()
        project_id = project.id
    client.post("/login", data={"username": "max", "password": PASSWORD})
    assert b"Half" not in client.get("/projects/").data
    assert client.get(f"/projects/{project_id}").status_code == 404
    assert client.get(f"/api/v1/projects/{project_id}/progress").status_code == 404


def test_a_live_import_is_left_alone_and_a_finished_one_is_ready(app, people):
    with app.app_context():
        staged = stage_files("Live", "dedupe", people["max"], A=MINDFIRL / "dev_file1.csv")
        owner = db.session.get(User, people["max"])
        live = start_import(staged, dev_plan(), owner)  # this process: alive
        db.session.commit()
        assert reconcile_imports() == []
        assert db.session.get(Project, live.id).state == ProjectState.IMPORTING
        assert reconcile_imports(stale_after=-1) == [live.id]  # no progress for too long
        staged = stage_files("Done", "dedupe", people["max"], A=MINDFIRL / "dev_file1.csv")
        done = import_upload(staged, dev_plan(), owner)
        db.session.commit()
        assert (done.state, done.import_owner, done.import_token) == ("ready", None, None)
        assert reconcile_imports(stale_after=-1) == []
