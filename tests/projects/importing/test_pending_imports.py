"""One pass: the mapping step checks and writes a waiting project; "Import" only publishes it."""

from __future__ import annotations

import os
import shutil
import time

from sqlalchemy import func, select

from app.extensions import db
from app.models import Project, Record, User
from app.projects.importing import check_and_write, load, remember
from app.projects.importing.recovery import reconcile_imports
from tests.factories import PASSWORD, make_user
from tests.projects.conftest import MALFORMED, MINDFIRL, dev_plan, row_counts, stage_files
from tests.projects.views.test_manage_web import manager, mapping_form, upload  # noqa: F401

DEV_RECORDS = 15  # dev_file1.csv under keep_first


def _checked(manager, **extra):  # noqa: F811
    """Upload dev_file1, submit the mapping; return (map url, the waiting project's id)."""
    map_url = upload(manager, "dedupe", A=MINDFIRL / "dev_file1.csv").headers["Location"]
    page = manager.post(map_url, data=mapping_form(**extra))
    assert page.status_code == 200 and b"but 4 rows will be dropped" in page.data
    assert f"Source A: {DEV_RECORDS} records".encode() in page.data
    return map_url, db.session.scalar(select(Project.id))


def _waiting(project_id: int) -> Project:
    db.session.expire_all()
    return db.session.get(Project, project_id)


def test_the_check_writes_a_project_listed_nowhere(app, manager, client):  # noqa: F811
    with app.app_context():
        make_user("ada", "admin")
        map_url, project_id = _checked(manager)
        project = _waiting(project_id)
        assert (project.state, project.import_owner) == ("importing", None)
        assert project.import_token == map_url.split("/")[-2]
        assert db.session.scalar(select(func.count(Record.id))) == DEV_RECORDS
    base = f"/projects/{project_id}"
    assert b"Web study" not in manager.get("/projects/").data
    for url in (base, f"{base}/progress", f"{base}/export/labels", f"{base}/blocking"):
        assert manager.get(url).status_code == 404, url
    for url in (f"/api/v1{base}/progress", f"/api/v1{base}/export/labels"):
        assert manager.get(url).status_code == 404, url
    assign = {"worker": "wes", "budget": 0.5}
    api = manager.post(f"/api/v1/projects/{project_id}/assignments", json=assign)
    assert api.status_code == 404  # no worker can be given its pairs
    manager.post("/logout")
    client.post("/login", data={"username": "ada", "password": PASSWORD})
    assert b"Web study" not in client.get("/admin/audits").data


def test_confirming_publishes_without_writing(app, manager):  # noqa: F811
    with app.app_context():
        map_url, project_id = _checked(manager)
        before = row_counts()
    page = manager.get(map_url.replace("/map", "/checked"))
    assert b"but 4 rows will be dropped" in page.data  # the checked page can be shown again
    done = manager.post(map_url.replace("/map", "/import"))
    assert done.headers["Location"].endswith(f"/projects/{project_id}")
    with app.app_context():
        project = _waiting(project_id)
        assert (project.state, project.import_owner, project.import_token) == ("ready", None, None)
        assert row_counts() == before
    assert b"Web study" in manager.get("/projects/").data
    again = manager.post(map_url.replace("/map", "/import"))
    assert again.status_code == 404  # the staged upload is gone


def test_a_new_mapping_or_going_back_deletes_the_waiting_project(app, manager):  # noqa: F811
    with app.app_context():
        map_url, _ = _checked(manager)
        manager.post(map_url, data=mapping_form(kappa="2"))
        # (SQLite may reuse the deleted project's id: the first one is told by its kappa)
        assert db.session.scalars(select(Project.kappa)).all() == [2]
        assert db.session.scalar(select(func.count(Record.id))) == DEV_RECORDS
        back = manager.post(map_url.replace("/map", "/back"))
        assert back.headers["Location"].endswith(map_url)
        assert row_counts() == dict.fromkeys(row_counts(), 0)
    page = manager.get(map_url).get_data(as_text=True)
    assert 'name="kappa" type="number" min="1" value="2"' in page  # the choices as sent
    assert manager.post(map_url.replace("/map", "/import")).status_code == 302
    with app.app_context():  # nothing was waiting: nothing published
        assert db.session.scalar(select(func.count(Project.id))) == 0


def test_a_bad_file_or_mapping_leaves_nothing(app, manager):  # noqa: F811
    response = upload(manager, "dedupe", A=MALFORMED / "bad_date.csv")
    roles = {0: ("id", "string"), 1: ("identifying", "string"), 2: ("identifying", "string"),
             3: ("identifying", "date"), 4: ("sensitive", "string")}  # fmt: skip
    page = manager.post(response.headers["Location"], data=mapping_form(roles))
    assert page.status_code == 400 and b"line 2, column &#39;dob&#39;" in page.data
    with app.app_context():
        assert row_counts() == dict.fromkeys(row_counts(), 0)
        map_url, _ = _checked(manager)
    # A checked upload mapped again badly (names typed as dates): the old one goes too.
    bad = mapping_form(**{"type-2": "date"})
    page = manager.post(map_url, data=bad)
    assert page.status_code == 400 and b"column &#39;first_name&#39;" in page.data
    with app.app_context():
        assert row_counts() == dict.fromkeys(row_counts(), 0)


def _waiting_project(people, name: str) -> tuple[int, str]:
    staged = stage_files(name, "dedupe", people["max"], A=MINDFIRL / "dev_file1.csv")
    owner = db.session.get(User, people["max"])
    project, checked = check_and_write(staged, dev_plan(), owner)
    remember(staged, project, checked)
    db.session.commit()
    return project.id, staged.token


def test_recovery_keeps_waiting_projects_and_removes_orphans(app, people, tmp_path):
    with app.app_context():
        kept, _ = _waiting_project(people, "Waiting")
        gone, gone_token = _waiting_project(people, "Gone")
        expired, expired_token = _waiting_project(people, "Expired")
        shutil.rmtree(tmp_path / "uploads" / gone_token)
        meta = load(expired_token, people["max"]).directory / "meta.json"
        long_ago = time.time() - 2 * 24 * 3600
        os.utime(meta, (long_ago, long_ago))
        assert sorted(reconcile_imports(stale_after=-1)) == sorted([gone, expired])
        assert db.session.scalars(select(Project.id)).all() == [kept]
        assert db.session.scalar(select(func.count(Record.id))) == DEV_RECORDS
        assert not (tmp_path / "uploads" / expired_token).exists()


def test_a_new_upload_sweeps_expired_uploads_and_their_projects(app, manager, tmp_path):  # noqa: F811
    with app.app_context():
        map_url, project_id = _checked(manager)
    directory = tmp_path / "uploads" / map_url.split("/")[-2]
    long_ago = time.time() - 2 * 24 * 3600
    for item in [directory / "meta.json", directory]:
        os.utime(item, (long_ago, long_ago))
    upload(manager, "dedupe", A=MINDFIRL / "dev_file1.csv")
    with app.app_context():
        assert db.session.get(Project, project_id) is None
        assert db.session.scalar(select(func.count(Record.id))) == 0


def test_job_progress_is_committed_at_most_every_interval(monkeypatch):
    from app.projects.importing.pending import jobs

    clock, calls = iter([0.0, 0.5, 1.9, 2.1, 2.2, 9.0]), []
    monkeypatch.setattr(jobs.time, "monotonic", lambda: next(clock))
    throttled = jobs._Throttled(lambda done, total: calls.append(done), 2.0)
    for done in range(1, 7):
        throttled(done, 10)
    assert calls == [1, 4, 6]
