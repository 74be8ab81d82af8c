"""No value of a record in any log line or job error: failing inserts and imports, greped."""

from __future__ import annotations

import logging

import pytest
from sqlalchemy import func, select

from app.extensions import db
from app.jobs import submit
from app.models import Job, Project
from app.projects.lifecycle import bulk
from tests.projects.conftest import MINDFIRL
from tests.projects.views.test_manage_web import manager, mapping_form, upload  # noqa: F401

SECRET = "Zebediah" + "Q" * 142  # 150 characters: longer than records.external_id


def spec(record_id: str = SECRET) -> dict:
    return {
        "name": "Leaky",
        "kind": "dedupe",
        "attributes": [{"name": "name"}, {"name": "note", "sensitive": True}],
        "records": [
            {"id": record_id, "name": "Ann Secretname", "note": "private note"},
            {"id": "2", "name": "Bob", "note": "x"},
        ],
        "pairs": [[record_id, "2"]],
    }


def _clean(caplog, *texts) -> None:
    logged = "\n".join(
        r.getMessage() + (logging.Formatter().formatException(r.exc_info) if r.exc_info else "")
        for r in caplog.records
    )
    for text in (SECRET, "Secretname", "private note", *texts):
        assert text not in logged


def test_a_long_record_id_through_the_api_is_refused_by_row_and_column(app, manager, caplog):  # noqa: F811
    caplog.set_level(logging.DEBUG)
    response = manager.post("/api/v1/projects", json=spec())
    assert response.status_code == 400
    # The schema check refuses it before the import service sees it: the path names the
    # record and the field, never the value.
    assert response.get_json()["message"] == (
        "body.records[0].id: longer than 100 characters, the longest id kept whole "
        "(MAX_RECORD_ID_CHARS)"
    )
    assert SECRET not in response.get_data(as_text=True)
    _clean(caplog)


def test_a_failing_insert_through_the_api_logs_no_value(app, manager, caplog, monkeypatch):  # noqa: F811
    """Every record gets the same pseudonym: the database refuses the insert itself."""
    caplog.set_level(logging.DEBUG)
    monkeypatch.setattr(bulk, "new_pseudonyms", lambda n: ["0" * 32] * n)
    response = manager.post("/api/v1/projects", json=spec("Zebediah-7"))
    assert response.status_code == 500
    assert "nothing was saved" in response.get_json()["message"]
    assert any("IntegrityError" in r.getMessage() for r in caplog.records)
    _clean(caplog, "Zebediah-7")
    with app.app_context():
        assert db.session.scalar(select(func.count(Project.id))) == 0


def test_a_failing_insert_in_a_job_names_the_type_only(app, people, caplog):
    caplog.set_level(logging.DEBUG)

    def insert_twice(*, progress):
        project = Project(name="p", kind="dedupe", owner_id=people["max"])
        db.session.add(project)
        db.session.flush()
        from app.models import Source

        source = Source(project_id=project.id, label="A", record_count=0)
        db.session.add(source)
        db.session.flush()
        ids, values = ["Zebediah-9", "Zebediah-9"], [{"name": "Ann Secretname"}] * 2
        bulk.insert_records(project.id, source.id, ids, values, None)
        db.session.flush()

    with app.test_request_context():
        job_id = submit("insert", insert_twice, created_by=people["max"])
        job = db.session.get(Job, job_id)
        assert job.status == "failed"
        assert job.error == "IntegrityError"
    _clean(caplog, "Zebediah-9")


@pytest.fixture
def leaky_csv(tmp_path):
    path = tmp_path / "leaky.csv"
    lines = (MINDFIRL / "dev_file1.csv").read_text().splitlines()
    header, first, *rest = lines
    # line 2 gets an over-long id, line 3 a date that is no date, line 4 an over-long name
    fields = rest[0].split(",")
    fields[4] = "31/31/Secretname"
    long_name = rest[1].split(",")
    long_name[2] = "Secretname" * 200
    body = [SECRET + first[first.index(",") :], ",".join(fields), ",".join(long_name)]
    path.write_text("\n".join([header, *body, *rest[2:]]) + "\n")
    return path


def test_csv_path_names_rows_and_columns_and_its_job_error_no_value(
    app,
    manager,  # noqa: F811
    leaky_csv,
    caplog,
):
    caplog.set_level(logging.DEBUG)
    response = upload(manager, "dedupe", A=leaky_csv)
    map_url = response.headers["Location"]
    page = manager.post(map_url, data=mapping_form()).get_data(as_text=True)
    assert "line 2, column &#39;ID&#39;: longer than 100 characters" in page
    assert "line 4" in page and "value longer than the limit of 1,000 characters" in page
    assert "Upload the files again" in page  # a file past a bound is deleted at once
    # (the page previews the manager's own file, values included; the problems quote none)
    # Through a job: the job's error names places only; the mapping page lists the problems.
    app.config["IMPORT_JOB_THRESHOLD"] = 1
    big = upload(manager, "dedupe", A=leaky_csv).headers["Location"]
    started = manager.post(big, data=mapping_form())
    assert started.status_code == 302 and "/projects/jobs/" in started.headers["Location"]
    shown = manager.get(started.headers["Location"], follow_redirects=True)
    text = shown.get_data(as_text=True)
    # past a bound: the upload is deleted, the job's page says where (never what)
    assert "line 3, column &#39;dob&#39;" in text and "nothing was kept" in text
    problems = text.split('role="alert">')[1].split("</p>")[0]
    assert all(value not in problems for value in (SECRET, "Secretname", "31/31"))
    with app.app_context():
        job = db.session.scalars(select(Job)).one()
        assert job.status == "failed"
        assert job.error.startswith("CsvImportError: problems at line 2, column 'ID'")
        assert "line 3, column 'dob'" in job.error and "line 4, column 'first_name'" in job.error
        for text in (SECRET, "Secretname", "31/31"):
            assert text not in job.error
        assert db.session.scalar(select(func.count(Project.id))) == 0
    _clean(caplog, "31/31")
