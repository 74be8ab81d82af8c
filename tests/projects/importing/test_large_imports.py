"""Large imports run as a Job with progress; upload size limit; staged uploads cleaned up."""

from __future__ import annotations

import os
import time

import pytest
from sqlalchemy import func, select

from app.datagen import write_csv
from app.extensions import db
from app.models import Job, Project, Record
from app.projects.importing.uploads import sweep
from tests.projects.conftest import stage_files
from tests.projects.views.test_manage_web import manager, upload  # noqa: F401 (fixture)

ROWS = 60_000
# datagen's columns: id, cluster_id, voter_reg_num, first_name, last_name, dob, sex, race,
# income, diagnosis.
ROLES = {0: ("id", "string"), 1: ("ignored", "string"), 2: ("identifying", "id"),
         3: ("identifying", "string"), 4: ("identifying", "string"), 5: ("identifying", "date"),
         6: ("identifying", "category"), 7: ("identifying", "category"),
         8: ("sensitive", "string"), 9: ("sensitive", "string")}  # fmt: skip


def mapping(**extra) -> dict:
    form = {f"role-{i}": role for i, (role, _) in ROLES.items()}
    form |= {f"type-{i}": kind for i, (_, kind) in ROLES.items()}
    return form | {"on_duplicate_id": "error", "kappa": "1", "page_size": "10"} | extra


@pytest.mark.slow
def test_an_import_above_the_threshold_runs_as_a_job_with_progress(app, manager, people, tmp_path):  # noqa: F811
    path = tmp_path / "people.csv"
    assert write_csv(path, ROWS, seed=7) == ROWS
    # Staged directly: the test client would spool a multipart body this big to a
    # temporary file it never closes.
    with app.app_context():
        staged = stage_files("Big", "dedupe", people["max"], A=path)
    map_url = f"/projects/new/{staged.token}/map"
    started = manager.post(map_url, data=mapping())  # checked and written by a job
    assert started.status_code == 302 and "/projects/jobs/" in started.headers["Location"]
    job_page = manager.get(started.headers["Location"])  # done: on to the checked page
    assert job_page.headers["Location"].endswith(f"/new/{staged.token}/checked")
    checked = manager.get(job_page.headers["Location"])
    assert checked.status_code == 200 and b"60000 records" in checked.data
    with app.app_context():
        job = db.session.scalars(select(Job)).one()
        assert (job.kind, job.status) == ("import", "done")
        assert job.progress_total == job.progress_done == ROWS
        project = db.session.get(Project, job.result["project_id"])
        assert project.state == "importing" and project.import_owner is None  # waiting
        assert db.session.scalar(select(func.count(Record.id))) == ROWS
    assert b"Big" not in manager.get("/projects/").data
    done = manager.post(map_url.replace("/map", "/import"))  # only publishes
    assert done.headers["Location"].endswith(f"/projects/{job.result['project_id']}")
    with app.app_context():
        project = db.session.get(Project, job.result["project_id"])
        assert project.state == "ready" and project.sources[0].record_count == ROWS
    assert b"Open the project" in manager.get(started.headers["Location"]).data
    assert list((tmp_path / "uploads").iterdir()) == []  # the staged files are gone


def test_a_failed_job_import_leaves_no_project(app, manager, monkeypatch):  # noqa: F811
    from app.projects.importing.pending import waiting as pending
    from tests.projects.conftest import MINDFIRL

    app.config["IMPORT_JOB_THRESHOLD"] = 10
    response = upload(manager, "dedupe", A=MINDFIRL / "dev_file1.csv")
    map_url = response.headers["Location"]
    from tests.projects.views.test_manage_web import mapping_form

    def broken(project, staged, plan, progress=None):
        progress(5, 10)  # commits what was written so far, as a real chunk would
        raise RuntimeError("disk full")

    monkeypatch.setattr(pending, "fill_import", broken)
    started = manager.post(map_url, data=mapping_form())
    page = manager.get(started.headers["Location"])
    assert b"failed" in page.data and b"disk full" in page.data
    with app.app_context():
        assert db.session.scalar(select(func.count(Project.id))) == 0


def test_an_upload_over_the_limit_gets_a_clear_413(app, manager, tmp_path):  # noqa: F811
    app.config["MAX_CONTENT_LENGTH"] = 1024
    big = tmp_path / "big.csv"
    big.write_text("id,name\n" + "1,x\n" * 1000)
    response = upload(manager, "dedupe", A=big)
    assert response.status_code == 413
    assert b"larger than the limit" in response.data
    api = manager.post("/api/v1/projects", data=b"x" * 2048, content_type="application/json")
    assert api.status_code == 413
    assert api.get_json()["error"] == "request_entity_too_large"
    assert "MAX_CONTENT_LENGTH" in api.get_json()["message"]


def test_stale_staged_uploads_are_swept_on_the_next_upload(app, manager, tmp_path):  # noqa: F811
    from tests.projects.conftest import MINDFIRL

    upload(manager, "dedupe", A=MINDFIRL / "dev_file1.csv")
    (old,) = list((tmp_path / "uploads").iterdir())
    long_ago = time.time() - 2 * 24 * 3600
    for item in [old / "meta.json", old]:
        os.utime(item, (long_ago, long_ago))
    upload(manager, "dedupe", A=MINDFIRL / "dev_file1.csv")
    remaining = list((tmp_path / "uploads").iterdir())
    assert old not in remaining and len(remaining) == 1
    with app.app_context():
        assert sweep(max_age=0) == 1
